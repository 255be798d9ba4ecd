// Starts Debian's headless Chromium through playwright-core, for hangar's
// picture tests.  Never downloads a browser: the executable is
// $HANGAR_CHROMIUM, else /usr/bin/chromium (scripts/bootstrap installs it).
// When neither exists the test fails with a message saying how to install
// it, unless HANGAR_SKIP_BROWSER=1, where it exits 77 (meson's "skipped").
'use strict';
const fs = require('fs');
const { chromium } = require('playwright-core');

function chromiumPath() {
	const p = process.env.HANGAR_CHROMIUM || '/usr/bin/chromium';
	if (fs.existsSync(p))
		return p;
	if (process.env.HANGAR_SKIP_BROWSER === '1') {
		console.error(`skipped: no Chromium at ${p} (HANGAR_SKIP_BROWSER=1)`);
		process.exit(77);
	}
	console.error(`error: no Chromium at ${p}: run scripts/bootstrap (Debian package chromium), ` +
		'set HANGAR_CHROMIUM to its path, or HANGAR_SKIP_BROWSER=1 to skip this test');
	process.exit(1);
}

// The flags keep Chromium off this closed network (no background
// connections, no updates, no sync); playwright gives it a fresh profile.
async function launch() {
	return chromium.launch({
		executablePath: chromiumPath(),
		headless: true,
		args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
			'--disable-background-networking', '--disable-component-update',
			'--disable-sync'],
	});
}

// A page that records console errors and uncaught exceptions in `errors`.
async function openPage(browser, viewport = { width: 1200, height: 900 }) {
	const page = await browser.newPage({ viewport });
	const errors = [];
	page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
	page.on('pageerror', e => errors.push(String(e)));
	return { page, errors };
}

module.exports = { launch, openPage, chromiumPath };
