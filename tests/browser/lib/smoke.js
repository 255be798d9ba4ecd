// tests/browser/lib/smoke.js: the browser itself works (opens a file://
// page, runs its script, takes a screenshot).  The picture tests build on it.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { launch, openPage } = require('./browser');

(async () => {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-smoke-'));
	const file = path.join(dir, 'p.html');
	fs.writeFileSync(file, '<!doctype html><p id=p>x</p><script>p.textContent="ran"</script>');
	const browser = await launch();
	try {
		const { page, errors } = await openPage(browser);
		await page.goto('file://' + file);
		const text = await page.textContent('#p');
		if (text !== 'ran' || errors.length)
			throw new Error(`page did not run: ${text} ${errors.join('; ')}`);
		await page.screenshot({ path: path.join(dir, 'p.png') });
		console.log('ok: chromium opens file:// pages and runs their scripts');
	} finally {
		await browser.close();
		fs.rmSync(dir, { recursive: true, force: true });
	}
})().catch(e => { console.error(e.message || e); process.exit(1); });
