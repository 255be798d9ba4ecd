// tests/browser/svg.js FIXTURE ARTIFACTS HANGAR SOURCE_ROOT: hangar's SVG
// flame graphs in headless Chromium, opened from file://.  FIXTURE
// (svg_fixture) writes flame.svg and diff.svg from flames built by hand;
// HANGAR draws the sample report (stack -f svg) and testdata/flame-diff's
// two versions (diff --flame).  Checks: no console errors; the StackKey
// frame visible and outlined; a click zooms (the frame then spans the
// width, its callers stay above, the rest hidden) and Reset undoes it;
// search marks matches and says their share; hover fills the details
// line; with JavaScript off every frame and label is still drawn; a diff
// is red where it grew, blue where it shrank, hatched where new; a KSCrash
// hang's Swift frames named demangled, with the mangled symbol, and a
// Matrix-iOS report's source line, in the tooltip.
// Screenshots (1200 px and 600 px wide) go to ARTIFACTS.
'use strict';
const assert = require('assert');
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { launch, openPage } = require('./lib/browser');

const argv = process.argv.slice(2);
if (argv.length !== 4) {
	console.error('usage: svg.js FIXTURE ARTIFACTS HANGAR SOURCE_ROOT');
	process.exit(2);
}
const [fixture, artifacts, hangar, root] = argv.map(p => path.resolve(p));
fs.mkdirSync(artifacts, { recursive: true });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-svg-'));
const WIDTH = 1200, PAD = 10;
const KEY = 'sample.tencent.matrix.trace.TestTraceMainActivity.testInnerSleep()';

// Frames as the page has them: name (first title line), rect geometry
// (attributes and as drawn), classes, fill, label.
async function frames(page) {
	return page.$$eval('g.f', gs => gs.map(g => {
		const r = g.querySelector('rect'), t = g.querySelector('text');
		const box = r.getBoundingClientRect();
		return {
			name: g.querySelector('title').textContent.split('\n')[0],
			title: g.querySelector('title').textContent,
			cls: g.getAttribute('class'), x: +r.getAttribute('x'), w: +r.getAttribute('width'),
			drawnW: box.width, hidden: getComputedStyle(g).display === 'none',
			fill: getComputedStyle(r).fill, label: t ? t.textContent : '',
		};
	}));
}

async function shot(page, name) {
	await page.screenshot({ path: path.join(artifacts, name) });
}

async function checkKey(page) {
	const key = page.locator('[id$="key"] rect');
	assert.ok(await key.isVisible(), 'the StackKey frame is visible');
	const style = await key.evaluate(r => {
		const s = getComputedStyle(r);
		return { stroke: s.stroke, width: parseFloat(s.strokeWidth) };
	});
	assert.strictEqual(style.stroke, 'rgb(11, 61, 145)', 'the StackKey frame is outlined');
	assert.ok(style.width >= 3, `StackKey outline ${style.width} px`);
	const box = await key.boundingBox();
	assert.ok(box.width > 100 && box.y < 900, `StackKey frame on screen: ${JSON.stringify(box)}`);
}

async function clickFrame(page, name) {
	const g = page.locator('g.f').filter({ has: page.locator('title', { hasText: name }) }).first();
	await g.locator('rect').click();
}

// Zoom into C(): it spans the width, tryHeavyMethod below it too (alone
// in it), its callers stay above at full width, D() is hidden; Reset
// puts everything back.
async function checkZoom(page, before) {
	const C = 'sample.tencent.matrix.trace.TestTraceMainActivity.C()';
	await clickFrame(page, C);
	const after = await frames(page);
	const c = after.find(f => f.name === C);
	assert.ok(Math.abs(c.w - (WIDTH - 2 * PAD)) < 0.05, `zoomed frame spans the width: ${c.w}`);
	assert.ok(c.drawnW > WIDTH - 2 * PAD - 1, `zoomed frame drawn ${c.drawnW} px`);
	const heavy = after.find(f => f.name.endsWith('tryHeavyMethod()'));
	const scale = (WIDTH - 2 * PAD) / before.find(f => f.name === C).w;
	const heavyBefore = before.find(f => f.name.endsWith('tryHeavyMethod()'));
	assert.ok(!heavy.hidden && Math.abs(heavy.w - heavyBefore.w * scale) < 0.1,
		`its callee scaled with it: ${heavy.w}`);
	assert.ok(heavy.label.includes('tryHeavyMethod'), `callee labelled: ${heavy.label}`);
	const caller = after.find(f => f.name.endsWith('.A()'));
	assert.ok(!caller.hidden && caller.cls.split(' ').includes('a') &&
		Math.abs(caller.w - (WIDTH - 2 * PAD)) < 0.05, 'callers stay as a path above');
	assert.ok(after.find(f => f.name.endsWith('.D()')).hidden, 'unrelated frames hidden');
	assert.ok(await page.locator('[id$="reset"]').isVisible(), 'Reset zoom shown');
	await shot(page, 'flame-zoomed.png');
	await page.locator('[id$="reset"]').click();
	const back = await frames(page);
	back.forEach((f, i) => {
		assert.ok(!f.hidden && Math.abs(f.x - before[i].x) < 0.011 &&
			Math.abs(f.w - before[i].w) < 0.011, `reset restores ${f.name}`);
	});
	assert.ok(!(await page.locator('[id$="reset"]').isVisible()), 'Reset hidden again');
}

async function checkSearch(page, all) {
	const input = page.locator('input[id$="search"]');
	await input.fill('tryheavy');
	const marked = (await frames(page)).filter(f => f.cls.split(' ').includes('m'));
	assert.deepStrictEqual(marked.map(f => f.name),
		['sample.tencent.matrix.trace.TestTraceMainActivity.tryHeavyMethod()']);
	assert.strictEqual(marked[0].fill, 'rgb(224, 32, 208)', 'a match is marked');
	const heavy = all.find(f => f.name.endsWith('tryHeavyMethod()'));
	const share = (100 * heavy.w / (WIDTH - 2 * PAD)).toFixed(1);
	const found = await page.locator('[id$="found"]').textContent();
	assert.strictEqual(found, `1 frame match, ${share}% of the total`);
	await shot(page, 'flame-search.png');
	// Nested matches count once: every TestTraceMainActivity frame is
	// under testJankiess, so their share is testJankiess's.
	await input.fill('TestTraceMainActivity');
	const jank = all.find(f => f.name.endsWith('testJankiess(View)'));
	assert.strictEqual(await page.locator('[id$="found"]').textContent(),
		`8 frames match, ${(100 * jank.w / (WIDTH - 2 * PAD)).toFixed(1)}% of the total`);
	await input.fill('');
	assert.strictEqual((await frames(page)).filter(f => f.cls.split(' ').includes('m')).length, 0);
}

async function checkHover(page) {
	await page.locator('[id$="key"] rect').hover();
	const details = await page.locator('[id$="details"]').textContent();
	assert.ok(details.startsWith(KEY) && details.includes('the StackKey'), `details: ${details}`);
}

// Labels fit their rects (drawn width, the font as the browser has it) and
// keep the method name.
async function checkLabels(page) {
	const bad = await page.$$eval('g.f', gs => gs.filter(g => {
		const t = g.querySelector('text');
		if (!t || !t.textContent || getComputedStyle(g).display === 'none')
			return false;
		const name = g.querySelector('title').textContent.split('\n')[0];
		const method = name.split('(')[0].split('.').pop();
		const room = g.querySelector('rect').getBoundingClientRect().width;
		return t.getComputedTextLength() > room - 2 || !t.textContent.includes(method);
	}).map(g => g.querySelector('text').textContent));
	assert.deepStrictEqual(bad, [], 'labels that overflow or lost their method');
}

async function checkStatic(browser, file, expectFrames) {
	const page = await browser.newPage({ viewport: { width: WIDTH, height: 900 },
		javaScriptEnabled: false });
	await page.goto('file://' + file);
	const all = await frames(page);
	assert.strictEqual(all.length, expectFrames, 'every frame drawn without scripts');
	assert.ok(all.every(f => !f.hidden && f.drawnW > 0), 'all visible');
	assert.ok(all.filter(f => f.label).length > 20, 'labels drawn without scripts');
	assert.strictEqual(await page.locator('input').count(), 0, 'no dead search box');
	await shot(page, path.basename(file, '.svg') + '-static.png');
	await page.close();
}

// In a 600 px window the picture is drawn again to 600 px: the search box
// on screen, labels still fitting, a zoom spanning the new width.
async function checkNarrow(page, prefix) {
	await page.setViewportSize({ width: 600, height: 800 });
	await page.waitForFunction(() => document.documentElement.getAttribute('width') === '600');
	const box = await page.locator('input[id$="search"]').boundingBox();
	assert.ok(box.x >= 0 && box.x + box.width <= 600, `search box on screen: ${JSON.stringify(box)}`);
	const title = await page.locator('[id$="title"]');
	const tb = await title.boundingBox();
	assert.ok(tb.x + tb.width <= box.x, 'the title stops before the search box');
	await checkKey(page);
	await checkLabels(page);
	await shot(page, prefix + '-600.png');
	const C = 'sample.tencent.matrix.trace.TestTraceMainActivity.C()';
	await clickFrame(page, C);
	const c = (await frames(page)).find(f => f.name === C);
	assert.ok(Math.abs(c.w - (600 - 2 * PAD)) < 0.05, `zoomed at 600 px: ${c.w}`);
	await checkLabels(page);
	await shot(page, prefix + '-600-zoomed.png');
	await page.locator('[id$="reset"]').click();
}

async function checkFlame(browser, file, prefix) {
	const { page, errors } = await openPage(browser);
	await page.goto('file://' + file);
	const all = await frames(page);
	assert.ok(all.length > 300, `${all.length} frames`);
	await checkKey(page);
	await checkLabels(page);
	await shot(page, prefix + '-1200.png');
	await checkHover(page);
	await checkZoom(page, all);
	await checkSearch(page, all);
	assert.deepStrictEqual(errors, [], 'console errors');
	await checkNarrow(page, prefix);
	await page.close();
	return all.length;
}

async function checkDiff(browser, file) {
	const { page, errors } = await openPage(browser);
	await page.goto('file://' + file);
	const all = await frames(page);
	const by = s => all.find(f => f.name.endsWith(s));
	assert.strictEqual(by('testInnerSleep()').fill, 'rgb(255, 0, 0)', 'doubled: full red');
	assert.ok(by('testInnerSleep()').title.includes('before 800 ms, after 1600 ms (+100%)'));
	const b = by('.B()').fill.match(/\d+/g).map(Number);
	assert.ok(b[2] === 255 && b[0] < 255 && b[0] === b[1], `halved: blue (${b})`);
	assert.strictEqual(by('tryHeavyMethod()').fill, 'rgb(221, 221, 221)', 'unchanged: grey');
	assert.ok(by('.F()').fill.startsWith('url('), 'new: hatched');
	assert.ok(by('.F()').title.includes('new: not in the base'));
	await checkKey(page);
	await shot(page, 'diff-1200.png');
	await checkZoom(page, all);
	await page.locator('input[id$="search"]').fill('F()');
	assert.strictEqual((await frames(page)).filter(f => f.cls.split(' ').includes('m')).length, 1);
	assert.deepStrictEqual(errors, [], 'console errors');
	await page.close();
	await checkStatic(browser, file, all.length);
}

// What the command writes: the sample report's SVG, and a differential one
// from a store holding testdata/flame-diff as versions 1.0 and 1.1.
function fromCli() {
	const run = args => execFileSync(hangar, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
	fs.writeFileSync(path.join(dir, 'cli-stack.svg'), run(['stack', '-f', 'svg', '-m',
		'testdata/sample/methodMapping.txt', 'testdata/sample/jank.json']));
	fs.writeFileSync(path.join(dir, 'cli-swift.svg'), run(['stack', '-f', 'svg',
		'testdata/demangle/kscrash-hang-swift-cxx.json']));
	fs.writeFileSync(path.join(dir, 'cli-source.svg'), run(['stack', '-f', 'svg',
		'testdata/seeds/matrix-ios/article-report.json']));
	const db = path.join(dir, 'h.db');
	run(['ingest', '--db', db, '--app-version', '1.0', 'testdata/flame-diff/v1.ndjson']);
	run(['ingest', '--db', db, '--app-version', '1.1', 'testdata/flame-diff/v2.ndjson']);
	run(['diff', '--db', db, '--flame', 'bb4e1a', '--baseline-version', '1.0', '--version', '1.1',
		'-o', path.join(dir, 'cli-diff.svg')]);
}

// Native frames named as the text view names them, the mangled symbol and
// the source line in the tooltip (issues 26 and 27): a KSCrash hang's
// Swift and C++ frames, a Matrix-iOS report's HTHangValidation.swift:379.
const READER_LOAD = 'Reader.FeedView.reloadStories(from: [Swift.String]) -> ()';
const BLOCK = 'static HTHangValidationModel.blockMainThreadForFourSeconds()';

async function checkNames(browser) {
	const { page, errors } = await openPage(browser);
	await page.goto('file://' + path.join(dir, 'cli-swift.svg'));
	let all = await frames(page);
	assert.deepStrictEqual(all.filter(f => /^(\$s|_Z)/.test(f.name)).map(f => f.name), [],
		'frames named by their mangled symbols');
	const load = all.find(f => f.name === READER_LOAD);
	assert.ok(load && load.label.includes('reloadStories'), `labelled: ${load && load.label}`);
	await page.locator('g.f').filter({ has: page.locator('title', { hasText: READER_LOAD }) })
		.filter({ hasNotText: '@objc' }).locator('rect').hover();
	let details = await page.locator('[id$="details"]').textContent();
	assert.ok(details.startsWith(READER_LOAD) && details.includes('in Reader') &&
		details.includes('symbol $s6Reader8FeedViewC13reloadStories4fromySaySSG_tF'),
		`details: ${details}`);
	await page.locator('input[id$="search"]').fill('reloadStories');
	assert.strictEqual((await frames(page)).filter(f => f.cls.split(' ').includes('m')).length, 2,
		'the function and its @objc thunk match');
	await shot(page, 'cli-swift.png');
	await page.goto('file://' + path.join(dir, 'cli-source.svg'));
	all = await frames(page);
	const block = all.find(f => f.name === BLOCK);
	assert.ok(block && block.title.split('\n')[1] === 'at HTHangValidation.swift:379',
		`source line in the tooltip: ${block && block.title}`);
	await page.locator('g.f').filter({ has: page.locator('title', { hasText: BLOCK }) })
		.locator('rect').hover();
	details = await page.locator('[id$="details"]').textContent();
	assert.ok(details.includes('at HTHangValidation.swift:379'), `details: ${details}`);
	await shot(page, 'cli-source.png');
	assert.deepStrictEqual(errors, [], 'console errors');
	await page.close();
}

// The command's pictures: no errors, the StackKey outlined, a click on it
// zooms it to the width, the diff has red, blue and hatched frames.
async function checkCli(browser) {
	for (const name of ['cli-stack', 'cli-diff']) {
		const { page, errors } = await openPage(browser);
		await page.goto('file://' + path.join(dir, name + '.svg'));
		await checkKey(page);
		await checkLabels(page);
		const all = await frames(page);
		if (name === 'cli-diff') {
			const fills = all.map(f => f.fill);
			assert.ok(fills.some(f => /^rgb\(255, \d+, \d+\)$/.test(f) && f !== 'rgb(255, 255, 255)'), 'red');
			assert.ok(fills.some(f => /^rgb\(\d+, \d+, 255\)$/.test(f)), 'blue');
			assert.ok(fills.some(f => f.startsWith('url(')), 'hatched');
		}
		await shot(page, name + '.png');
		await page.locator('[id$="key"] rect').click();
		const key = (await frames(page)).find(f => f.cls.split(' ').includes('K'));
		assert.ok(Math.abs(key.w - (WIDTH - 2 * PAD)) < 0.05, `${name}: zoomed StackKey ${key.w}`);
		await shot(page, name + '-zoomed.png');
		assert.deepStrictEqual(errors, [], `${name}: console errors`);
		await page.close();
		fs.copyFileSync(path.join(dir, name + '.svg'), path.join(artifacts, name + '.svg'));
	}
}

(async () => {
	execFileSync(fixture, [dir]);
	fromCli();
	for (const f of ['flame.svg', 'diff.svg'])
		fs.copyFileSync(path.join(dir, f), path.join(artifacts, f));
	const browser = await launch();
	try {
		const n = await checkFlame(browser, path.join(dir, 'flame.svg'), 'flame');
		await checkStatic(browser, path.join(dir, 'flame.svg'), n);
		await checkDiff(browser, path.join(dir, 'diff.svg'));
		await checkCli(browser);
		await checkNames(browser);
		console.log(`ok: flame.svg (${n} frames), diff.svg and hangar's own zoom, search, hover and draw ` +
			`without scripts; screenshots in ${artifacts}`);
	} finally {
		await browser.close();
		fs.rmSync(dir, { recursive: true, force: true });
	}
})().catch(e => { console.error(e.stack || e.message || e); process.exit(1); });
