// tests/browser/callers.js ARTIFACTS HANGAR SOURCE_ROOT: `hangar show -f
// svg --callers` in headless Chromium, opened from file://.  HANGAR
// ingests the production reports (testdata/matrix-mangatoon) and draws the
// callers of cluster c36ed296's StackKey (#41907, reached from four
// callers of #43220 under Handler.dispatchMessage), and those of a LAG
// cluster of thread stacks from the labelled corpus (its key named by a
// frame's line as written).  Checks: no console errors; the title says
// whose callers; the StackKey is the one root, on top, outlined and as
// wide as the picture; the callers fan out below it, narrower than their
// callee; a click on a caller zooms it to the width, its callees stay
// above it as a path, unrelated callers hide, Reset undoes it; search
// marks matches and says their share (nested matches once).
// Screenshots go to ARTIFACTS.
'use strict';
const assert = require('assert');
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { launch, openPage } = require('./lib/browser');

const argv = process.argv.slice(2);
if (argv.length !== 3) {
	console.error('usage: callers.js ARTIFACTS HANGAR SOURCE_ROOT');
	process.exit(2);
}
const [artifacts, hangar, root] = argv.map(p => path.resolve(p));
fs.mkdirSync(artifacts, { recursive: true });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-callers-'));
const WIDTH = 1200, PAD = 10, FULL = WIDTH - 2 * PAD;
const DISPATCH = 'android.os.Handler.dispatchMessage(Message)';

function run(args) {
	return execFileSync(hangar, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
}

// Frames as the page has them: name, title, classes, rect geometry, label.
async function frames(page) {
	return page.$$eval('g.f', gs => gs.map(g => {
		const r = g.querySelector('rect'), t = g.querySelector('text');
		return {
			name: g.querySelector('title').textContent.split('\n')[0],
			title: g.querySelector('title').textContent,
			cls: g.getAttribute('class').split(' '), x: +r.getAttribute('x'),
			y: +r.getAttribute('y'), w: +r.getAttribute('width'),
			hidden: getComputedStyle(g).display === 'none', label: t ? t.textContent : '',
		};
	}));
}

async function shot(page, name) {
	await page.screenshot({ path: path.join(artifacts, name) });
}

// The StackKey: one frame, the top row, the whole width, outlined.
async function checkRoot(page, key, all) {
	const top = Math.min(...all.map(f => f.y));
	const roots = all.filter(f => f.y === top);
	assert.deepStrictEqual(roots.map(f => f.name), [key], 'the StackKey is the one root');
	assert.ok(roots[0].cls.includes('K') && Math.abs(roots[0].w - FULL) < 0.05,
		`the root is the StackKey, as wide as the picture: ${JSON.stringify(roots[0])}`);
	assert.ok(roots[0].title.includes('the StackKey'), roots[0].title);
	const keyRect = page.locator('[id$="key"] rect');
	assert.ok(await keyRect.isVisible(), 'the StackKey frame is visible');
	const stroke = await keyRect.evaluate(r => getComputedStyle(r).stroke);
	assert.strictEqual(stroke, 'rgb(11, 61, 145)', 'the StackKey frame is outlined');
	const title = await page.locator('[id$="title"]').textContent();
	assert.ok(title.endsWith(`: callers of ${key}`), `title: ${title}`);
}

// Every frame below the root sits inside the span of the frame above it
// that calls it, and no wider.
function checkNested(all) {
	const rows = [...new Set(all.map(f => f.y))].sort((a, b) => a - b);
	for (let i = 1; i < rows.length; i++)
		for (const f of all.filter(g => g.y === rows[i])) {
			const up = all.find(g => g.y === rows[i - 1] && g.x <= f.x + 0.01 &&
				f.x + f.w <= g.x + g.w + 0.01);
			assert.ok(up, `${f.name} at ${f.x} lies under a frame of the row above`);
		}
}

function byName(all, name) {
	const f = all.filter(g => g.name === name);
	assert.ok(f.length > 0, `a frame ${name}`);
	return f;
}

async function clickFrame(page, name) {
	const g = page.locator('g.f').filter({ has: page.locator('title', { hasText: name }) }).first();
	await g.locator('rect').click();
}

async function checkProduction(browser) {
	const db = path.join(dir, 'm.db');
	run(['ingest', '--db', db, 'testdata/matrix-mangatoon/reports.ndjson']);
	const file = path.join(dir, 'callers.svg');
	fs.writeFileSync(file, run(['show', '--db', db, 'c36ed296', '-f', 'svg', '--callers']));
	fs.copyFileSync(file, path.join(artifacts, 'callers.svg'));
	const { page, errors } = await openPage(browser);
	await page.goto('file://' + file);
	const all = await frames(page);
	await checkRoot(page, '#41907', all);
	checkNested(all);
	// #43220 is reached from four callers (three frames and the message
	// itself): they fan out under it, heaviest first, each narrower
	const fan = byName(all, '#43220')[0];
	const below = all.filter(f => f.y > fan.y && f.y - fan.y < 20 && f.x >= fan.x - 0.01 &&
		f.x + f.w <= fan.x + fan.w + 0.01);
	assert.deepStrictEqual(below.map(f => f.name), ['#4714', '#91483', '#143452', DISPATCH],
		'its callers, heaviest first');
	assert.ok(below.every(f => f.w < fan.w) && below[0].w > below[1].w, 'each narrower');
	// every path ends in the message that reached the key
	assert.strictEqual(byName(all, DISPATCH).length, 5);
	await shot(page, 'callers-1200.png');
	// zoom into a caller: it spans the width, its callees stay above as a
	// path, the other callers hide; Reset puts everything back
	await clickFrame(page, '#91483');
	const zoomed = await frames(page);
	const z = byName(zoomed, '#91483')[0];
	assert.ok(Math.abs(z.w - FULL) < 0.05, `the caller zoomed to the width: ${z.w}`);
	const key = zoomed.find(f => f.name === '#41907');
	assert.ok(!key.hidden && key.cls.includes('a') && Math.abs(key.w - FULL) < 0.05,
		'the StackKey stays above it as a path');
	assert.ok(byName(zoomed, '#4714').every(f => f.hidden), 'other callers hidden');
	assert.ok(!byName(zoomed, DISPATCH).filter(f => f.y > z.y)[0].hidden, 'its own caller shown');
	await shot(page, 'callers-zoomed.png');
	await page.locator('[id$="reset"]').click();
	const back = await frames(page);
	back.forEach((f, i) => assert.ok(!f.hidden && Math.abs(f.w - all[i].w) < 0.011,
		`reset restores ${f.name}`));
	// search: one caller, and the message every path ends in (100%)
	const input = page.locator('input[id$="search"]');
	await input.fill('#4714');
	let marked = (await frames(page)).filter(f => f.cls.includes('m'));
	assert.deepStrictEqual(marked.map(f => f.name), ['#4714']);
	const share = (100 * marked[0].w / FULL).toFixed(1);
	assert.strictEqual(await page.locator('[id$="found"]').textContent(),
		`1 frame match, ${share}% of the total`);
	await input.fill('dispatchMessage');
	marked = (await frames(page)).filter(f => f.cls.includes('m'));
	assert.strictEqual(marked.length, 5);
	assert.strictEqual(await page.locator('[id$="found"]').textContent(),
		'5 frames match, 100.0% of the total');
	await shot(page, 'callers-search.png');
	assert.deepStrictEqual(errors, [], 'console errors');
	await page.close();
	return all.length;
}

// A thread-stack cluster: its key_symbol is a line as written ("...parse(
// JsonFeedParser.java:422)"), the root the frame it names.
async function checkThreadStacks(browser) {
	const db = path.join(dir, 'l.db');
	run(['ingest', '--db', db, '--mapping-dir', 'testdata/labelled/mappings', 'testdata/labelled/reports']);
	const file = path.join(dir, 'callers-threads.svg');
	fs.writeFileSync(file, run(['show', '--db', db, 'e29e3049', '-f', 'svg', '--callers']));
	const { page, errors } = await openPage(browser);
	await page.goto('file://' + file);
	const all = await frames(page);
	await checkRoot(page, 'com.example.reader.parse.JsonFeedParser.parse', all);
	checkNested(all);
	assert.strictEqual(byName(all, 'com.example.reader.feed.FeedRepository.load').length, 1);
	assert.strictEqual(byName(all, 'android.os.Handler.dispatchMessage').length, 2);
	await page.locator('[id$="key"] rect').click();
	const key = (await frames(page)).find(f => f.cls.includes('K'));
	assert.ok(Math.abs(key.w - FULL) < 0.05, 'a click on the StackKey keeps it whole');
	await shot(page, 'callers-threads.png');
	assert.deepStrictEqual(errors, [], 'console errors');
	await page.close();
}

(async () => {
	const browser = await launch();
	try {
		const n = await checkProduction(browser);
		await checkThreadStacks(browser);
		console.log(`ok: callers.svg (${n} frames) and a thread-stack cluster's: the StackKey on ` +
			`top, callers fanning out, zoom, reset and search; screenshots in ${artifacts}`);
	} finally {
		await browser.close();
		fs.rmSync(dir, { recursive: true, force: true });
	}
})().catch(e => { console.error(e.stack || e.message || e); process.exit(1); });
