// tests/browser/digest.js ARTIFACTS HANGAR SOURCE_ROOT: the nightly HTML
// digest in headless Chromium, opened from file:// as a mail attachment or
// a CI artifact would be.  Two nights of the 581 real Matrix reports of
// testdata/matrix-mangatoon go through `hangar nightly --out digest.md
// --out digest.html`; then: the Markdown links the page; the page loads
// with no console error (its Content-Security-Policy would report any
// fetch) and no request leaves file://; a top cluster's link lands on its
// section; the section's flame graph shows its StackKey outlined; a click
// zooms that flame graph only (the others keep their widths, so their
// scripts do not collide); its search box marks matches.  Then the
// labelled triage bucket (testdata/triage) in one night: the lock ANR
// cluster's section shows who and where (OS, device model with shares)
// and what blocks the main thread over all its reports, visible on the
// page.  Screenshots go to ARTIFACTS.
'use strict';
const assert = require('assert');
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { launch, openPage } = require('./lib/browser');

const argv = process.argv.slice(2);
if (argv.length !== 3) {
	console.error('usage: digest.js ARTIFACTS HANGAR SOURCE_ROOT');
	process.exit(2);
}
const [artifacts, hangar, root] = argv.map(p => path.resolve(p));
fs.mkdirSync(artifacts, { recursive: true });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-digest-'));

// Two nights: the first 300 reports, then the rest.
function nights() {
	const lines = fs.readFileSync(path.join(root, 'testdata/matrix-mangatoon/reports.ndjson'), 'utf8')
		.split('\n').filter(l => l.length);
	const db = path.join(dir, 'store.db');
	for (const [n, part] of [[1, lines.slice(0, 300)], [2, lines.slice(300)]]) {
		const input = path.join(dir, `night${n}`);
		fs.mkdirSync(input);
		fs.writeFileSync(path.join(input, 'reports.ndjson'), part.join('\n') + '\n');
		execFileSync(hangar, ['nightly', '--db', db, '--out', path.join(dir, 'digest.md'),
			'--out', path.join(dir, 'digest.html'), input], { stdio: ['ignore', 'ignore', 'pipe'] });
	}
	const md = fs.readFileSync(path.join(dir, 'digest.md'), 'utf8');
	assert.ok(md.includes('- **Pictures:** [digest.html](digest.html)'), 'the Markdown links the page');
	return path.join(dir, 'digest.html');
}

// The widths of the first frames of each flame graph, by section id.
async function widths(page) {
	return page.$$eval('section.cluster', ss => ss.map(s => ({
		id: s.id,
		w: Array.from(s.querySelectorAll('g.f rect')).slice(0, 12).map(r => +r.getAttribute('width')),
	})));
}

async function check(page, errors, file) {
	const requests = [];
	page.on('request', r => { if (!r.url().startsWith('file://')) requests.push(r.url()); });
	await page.goto('file://' + file);
	await page.screenshot({ path: path.join(artifacts, 'digest-top.png') });
	assert.ok(await page.locator('h2#top').isVisible(), 'the top list');
	const sections = await page.locator('section.cluster').count();
	assert.ok(sections >= 10, `${sections} cluster sections`);
	assert.strictEqual(await page.locator('section.cluster svg g.f').count() > sections, true,
		'flame graphs drawn');

	// The first top cluster's link lands on its section.
	const link = page.locator('#top ~ table a').first();
	const href = await link.getAttribute('href');
	await link.click();
	assert.strictEqual(new URL(page.url()).hash, href, 'the link went to the section');
	const section = page.locator(`section${href}`);
	const box = await section.boundingBox();
	assert.ok(box && box.y >= -1 && box.y < 200, `the section is at the top of the window: ${box && box.y}`);
	const key = section.locator('[id$="key"] rect');
	await key.scrollIntoViewIfNeeded();
	assert.ok(await key.isVisible(), 'the StackKey frame is visible');
	const stroke = await key.evaluate(r => getComputedStyle(r).stroke);
	assert.strictEqual(stroke, 'rgb(11, 61, 145)', 'the StackKey frame is outlined');
	await page.screenshot({ path: path.join(artifacts, 'digest-cluster.png') });

	// Zoom, in the cluster whose flame graph draws the most frames, into
	// a frame a fifth to a half as wide as its picture: it then spans the
	// picture, and no other flame graph moves.
	const richest = await page.$$eval('section.cluster', ss => ss.map(s => ({
		id: s.id, n: s.querySelectorAll('g.f').length,
	})).sort((a, b) => b.n - a.n)[0].id);
	const rich = page.locator(`section#${richest}`);
	const full = +(await rich.locator('g.f rect').first().getAttribute('width'));
	const pick = await rich.locator('g.f rect').evaluateAll((rs, full) => rs.findIndex(r => {
		const w = +r.getAttribute('width');
		return w > full / 5 && w < full / 2;
	}), full);
	assert.ok(pick > 0, `a frame of a fifth to a half of ${full} px in #${richest}`);
	const target = rich.locator('g.f rect').nth(pick);
	await target.scrollIntoViewIfNeeded();
	const before = await widths(page);
	const narrow = +(await target.getAttribute('width'));
	await target.click();
	const zoomed = +(await target.getAttribute('width'));
	assert.ok(Math.abs(zoomed - full) < 0.5,
		`the clicked frame (${narrow} px) spans the picture: ${zoomed} of ${full}`);
	const after = await widths(page);
	for (let i = 0; i < before.length; i++)
		if (before[i].id !== richest)
			assert.deepStrictEqual(after[i].w, before[i].w, `section ${before[i].id} kept its widths`);
	await page.screenshot({ path: path.join(artifacts, 'digest-zoom.png') });

	// Search within the linked cluster's flame graph only.
	const name = await section.locator('[id$="key"] title').textContent();
	const word = name.split('\n')[0].split('.').pop().replace(/\(.*$/, '');
	await section.locator('input[id$="search"]').fill(word);
	const marked = await section.locator('g.f.m').count();
	assert.ok(marked >= 1, `search "${word}" marks ${marked} frames`);
	const others = await page.locator(`section.cluster:not(${href}) g.f.m`).count();
	assert.strictEqual(others, 0, 'other flame graphs are not searched');
	await section.scrollIntoViewIfNeeded();
	await page.screenshot({ path: path.join(artifacts, 'digest-search.png') });

	assert.deepStrictEqual(requests, [], 'nothing fetched');
	assert.deepStrictEqual(errors, [], 'no console errors');
	return sections;
}

// The triage bucket's digest: the lock ANR's section says who is hit and
// what blocks main, in 32 and 8 of its 40 reports.
async function triage(browser) {
	const db = path.join(dir, 'triage.db'), html = path.join(dir, 'triage.html');
	execFileSync(hangar, ['nightly', '--db', db, '--out', html, '--mapping-dir',
		path.join(root, 'testdata/triage/mappings'), path.join(root, 'testdata/triage/reports')],
	{ stdio: ['ignore', 'ignore', 'pipe'] });
	const { page, errors } = await openPage(browser);
	await page.goto('file://' + html);
	const section = page.locator('section.cluster', { hasText: 'CartRepository.total' }).first();
	await section.scrollIntoViewIfNeeded();
	const who = await section.locator('li.who').allTextContents();
	assert.ok(who.some(t => /^OS Android 13 \(API 33\) 38%/.test(t)), `OS breakdown: ${who}`);
	assert.ok(who.some(t => /^device model .*google redfin/.test(t)), `model breakdown: ${who}`);
	const blockers = section.locator('li.blocker');
	assert.strictEqual(await blockers.count(), 2, 'two blocker lines');
	assert.ok(await blockers.first().isVisible(), 'the blocker line is visible');
	assert.strictEqual(await blockers.first().textContent(),
		'blocked by in 32 of 40 reports: lock held by cart-sync-N in CartDao.save');
	await section.screenshot({ path: path.join(artifacts, 'digest-triage-cluster.png') });
	const coverage = await page.locator('ul.coverage li').allTextContents();
	assert.deepStrictEqual(coverage, ['3.2.0 10 of 41 reports: 10 without a methodMapping'],
		'the version without its methodMapping is named');
	assert.deepStrictEqual(errors, [], 'no console errors (triage)');
}

(async () => {
	const file = nights();
	const browser = await launch();
	try {
		const { page, errors } = await openPage(browser);
		const sections = await check(page, errors, file);
		await triage(browser);
		const size = fs.statSync(file).size;
		console.log(`ok: digest.html (${(size / 1024).toFixed(0)} KiB, ${sections} clusters with ` +
			'flame graphs): links, StackKey, zoom and search per picture, nothing fetched; ' +
			'the triage bucket\'s lock ANR: who and where, blockers');
	} finally {
		await browser.close();
		fs.rmSync(dir, { recursive: true, force: true });
	}
})().catch(e => { console.error(e.stack || e.message || e); process.exit(1); });
