// tests/browser/speedscope.js HANGAR SOURCE_ROOT [BUILD_ROOT]: hangar's
// speedscope exports in the real speedscope app.  Writes `stack -f
// speedscope` of a method stack with begin times, an ANR trace with a lock
// chain, a BlockCanary log, a KSCrash hang whose Swift and C++ frames are
// demangled (no frame named by a mangled symbol) and a Matrix-iOS report
// whose frames keep their file:line, and `show -f speedscope` of a cluster
// ingested from the production reports, and of another's StackKey callers
// (--callers); validates each against the
// file-format-schema.json speedscope ships (ajv); checks `-f chrome` of
// the same nests; then serves speedscope's release folder and the files on
// loopback from this process, opens each as speedscope's #profileURL= in
// Chromium, and checks that the profile's name and frame names show, with
// no console errors.  Screenshots go to BUILD_ROOT/meson-logs/browser/.
'use strict';
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const Ajv = require('ajv');
const { launch, openPage } = require('./lib/browser');

const [hangarArg, root, buildRoot = process.env.MESON_BUILD_ROOT] = process.argv.slice(2);
if (!hangarArg || !root) {
	console.error('usage: speedscope.js HANGAR SOURCE_ROOT [BUILD_ROOT]');
	process.exit(2);
}
const hangar = path.resolve(hangarArg); // meson gives it relative to the build folder
const release = path.join(__dirname, 'node_modules', 'speedscope', 'dist', 'release');
const shots = path.join(buildRoot || os.tmpdir(), 'meson-logs', 'browser');

function run(args) {
	return execFileSync(hangar, args, { cwd: root, maxBuffer: 256 << 20 }).toString();
}

// What each export must show: its file, and frame names expected in it.
function exports(dir) {
	const db = path.join(dir, 'h.db');
	run(['ingest', '--db', db, 'testdata/matrix-mangatoon/reports.ndjson']);
	const top = JSON.parse(run(['top', '--db', db, '-f', 'json', '--limit', '1']).split('\n')[0]);
	const hash = top.hash;
	return [
		{ name: 'method-stack', args: ['stack', '-f', 'speedscope', 'testdata/sample/jank.json'],
		  type: 'evented', frames: ['testInnerSleep', 'tryHeavyMethod'], key: true },
		{ name: 'anr-lock-chain',
		  args: ['stack', '-f', 'speedscope', 'testdata/anr/android13-emu-main-blocked-held-by-thread.txt'],
		  type: 'sampled', frames: ['(blocks main)', 'java.lang.Thread.sleep'] },
		{ name: 'blockcanary',
		  args: ['stack', '-f', 'speedscope', 'testdata/blockcanary/looper-2024-03-18_14-22-05.347.log'],
		  type: 'sampled', frames: ['BookmarkStore.flush', 'JSONStringer.string', 'QueuedWork.waitToFinish'] },
		// Swift and C++ symbols demangled, the source line a Matrix-iOS report gives
		{ name: 'kscrash-demangled',
		  args: ['stack', '-f', 'speedscope', 'testdata/demangle/kscrash-hang-swift-cxx.json'],
		  type: 'sampled', frames: ['Reader.FeedView.reloadStories(from: [Swift.String]) -> ()',
			'std::__1::this_thread::sleep_for('] },
		{ name: 'matrix-ios-source',
		  args: ['stack', '-f', 'speedscope', 'testdata/seeds/matrix-ios/article-report.json'],
		  type: 'sampled', frames: ['HTHangValidationModel.blockMainThreadForFourSeconds()'],
		  files: [['HTHangValidationModel.blockMainThreadForFourSeconds()', 'HTHangValidation.swift', 379]] },
		{ name: 'cluster', args: ['show', '--db', db, hash, '-f', 'speedscope'],
		  type: 'evented', frames: ['android.os.Handler.dispatchMessage(Message)'], key: true },
		// the StackKey's callers merged upward (show --callers): the key, the
		// frame its four callers fan out from, the message they all end in
		{ name: 'cluster-callers',
		  args: ['show', '--db', db, 'c36ed296', '-f', 'speedscope', '--callers'], type: 'evented',
		  frames: ['#41907', '#43220', '#91483', 'android.os.Handler.dispatchMessage(Message)'],
		  key: true, title: 'callers of #41907' },
	].map(e => ({ ...e, chrome: e.args.map(a => a === 'speedscope' ? 'chrome' : a) }));
}

function validate(ajvValidate, e, text) {
	const doc = JSON.parse(text);
	if (!ajvValidate(doc))
		throw new Error(`${e.name}: not speedscope's format: ${JSON.stringify(ajvValidate.errors).slice(0, 800)}`);
	const p = doc.profiles[0];
	if (p.type !== e.type)
		throw new Error(`${e.name}: a ${p.type} profile, expected ${e.type}`);
	if (e.key && !p.name.includes(' | StackKey: '))
		throw new Error(`${e.name}: the profile's name does not name the StackKey: ${p.name}`);
	if (e.title && !p.name.includes(e.title))
		throw new Error(`${e.name}: the profile's name does not say "${e.title}": ${p.name}`);
	for (const f of e.frames)
		if (!doc.shared.frames.some(fr => fr.name.includes(f)))
			throw new Error(`${e.name}: no frame named like ${f}`);
	if (doc.shared.frames.some(fr => /^(\$s|_Z)/.test(fr.name)))
		throw new Error(`${e.name}: a frame named by its mangled symbol`);
	for (const [f, file, line] of e.files || [])
		if (!doc.shared.frames.some(fr => fr.name.includes(f) && fr.file === file && fr.line === line))
			throw new Error(`${e.name}: ${f} is not at ${file}:${line}`);
	return p.name;
}

// Chrome's trace: X events nested per thread, none overlapping another partly.
function checkChrome(e, text) {
	const doc = JSON.parse(text);
	const open = [];
	let n = 0;
	for (const ev of doc.traceEvents) {
		if (ev.ph === 'M')
			continue;
		if (ev.ph !== 'X' || typeof ev.ts !== 'number' || typeof ev.dur !== 'number' ||
		    typeof ev.args.stack_key !== 'boolean')
			throw new Error(`${e.name}: chrome: a malformed event ${JSON.stringify(ev)}`);
		const end = ev.ts + ev.dur;
		while (open.length) {
			const top = open[open.length - 1];
			if (top.tid === ev.tid && top.ts <= ev.ts && end <= top.end)
				break;
			open.pop();
			if (top.tid === ev.tid && ev.ts < top.end)
				throw new Error(`${e.name}: chrome: ${ev.name} overlaps ${top.name} partly`);
		}
		open.push({ ...ev, end });
		n++;
	}
	if (n === 0)
		throw new Error(`${e.name}: chrome: no events`);
}

const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
	'.json': 'application/json', '.wasm': 'application/wasm', '.png': 'image/png',
	'.woff2': 'font/woff2', '.ico': 'image/x-icon', '.txt': 'text/plain' };

// speedscope's release folder at /, the profiles at /p/NAME.json.
function serve(profiles) {
	const server = http.createServer((req, res) => {
		const url = decodeURIComponent(req.url.split(/[?#]/)[0]);
		let file = null;
		if (url.startsWith('/p/'))
			file = profiles[path.basename(url)];
		else if (!url.includes('..'))
			file = path.join(release, url === '/' ? 'index.html' : url);
		if (!file || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
			res.writeHead(404);
			res.end();
			return;
		}
		res.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream' });
		fs.createReadStream(file).pipe(res);
	});
	return new Promise(ok => server.listen(0, '127.0.0.1', () => ok(server)));
}

async function show(browser, base, e, profileName) {
	const { page, errors } = await openPage(browser);
	const url = `${base}/index.html#profileURL=${encodeURIComponent(`${base}/p/${e.name}.json`)}`;
	await page.goto(url);
	await page.waitForFunction(n => document.body.innerText.includes(n), profileName,
		{ timeout: 30000 }).catch(() => {
		throw new Error(`${e.name}: speedscope does not show the profile "${profileName}"; ` +
			`errors: ${errors.join('; ')}`);
	});
	await page.waitForTimeout(500);
	await page.screenshot({ path: path.join(shots, `speedscope-${e.name}.png`) });
	// The sandwich view lists the frames as text (the flame chart is a canvas).
	await page.keyboard.press('3');
	for (const f of e.frames)
		await page.waitForFunction(t => document.body.innerText.includes(t), f,
			{ timeout: 10000 }).catch(() => {
			throw new Error(`${e.name}: speedscope's sandwich view lists no frame "${f}"`);
		});
	await page.screenshot({ path: path.join(shots, `speedscope-${e.name}-sandwich.png`) });
	if (errors.length)
		throw new Error(`${e.name}: console errors: ${errors.join('; ')}`);
	await page.close();
}

(async () => {
	fs.mkdirSync(shots, { recursive: true });
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-speedscope-'));
	let server = null, browser = null;
	try {
		const schema = JSON.parse(fs.readFileSync(path.join(release, 'file-format-schema.json')));
		const ajvValidate = new Ajv({ allErrors: true, strict: false }).compile(schema);
		const profiles = {}, names = {};
		const list = exports(dir);
		for (const e of list) {
			const text = run(e.args);
			names[e.name] = validate(ajvValidate, e, text);
			checkChrome(e, run(e.chrome));
			profiles[`${e.name}.json`] = path.join(dir, `${e.name}.json`);
			fs.writeFileSync(profiles[`${e.name}.json`], text);
		}
		console.log(`ok: ${list.length} speedscope files valid against the schema, chrome traces nested`);
		server = await serve(profiles);
		const base = `http://127.0.0.1:${server.address().port}`;
		browser = await launch();
		for (const e of list) {
			await show(browser, base, e, names[e.name]);
			console.log(`ok: speedscope shows ${e.name}: "${names[e.name]}"`);
		}
	} finally {
		if (browser)
			await browser.close();
		if (server)
			server.close();
		fs.rmSync(dir, { recursive: true, force: true });
	}
})().catch(e => { console.error(e.message || e); process.exit(1); });
