#!/usr/bin/env node
'use strict';
// A reverse proxy that hangar's network tests put in front of s3rver or
// nginx, so that every test server can (1) check AWS SigV4 signatures
// strictly, (2) fail on demand and (3) tell what requests it saw.
//
//   node front.js --upstream http://127.0.0.1:PORT [--verify-sigv4] [--port-file FILE]
//                 [--delay-ms N]
//
// --delay-ms N holds every request N ms before handling it (a distant
// endpoint's round trip; the control endpoints are not delayed).
// Listens on 127.0.0.1, on a port the kernel picks; prints the port on
// stdout and, with --port-file, writes it there (atomically, once listening).
// Control endpoints (never forwarded, never signed, never logged):
//   POST   /__hangar/faults    add a rule (JSON, see lib/faults.js and README.md)
//   GET    /__hangar/faults    the rules still active
//   DELETE /__hangar/faults    drop all rules
//   GET    /__hangar/requests  [{method, path, query, status, fault}, ...]
//   DELETE /__hangar/requests  forget the requests seen so far
//   GET    /__hangar/ping      "ok" (readiness)
// Stops on SIGTERM or SIGINT.

const fs = require('fs');
const http = require('http');
const { FaultRules } = require('./lib/faults');
const { sendError } = require('./lib/s3-error');
const sigv4 = require('./lib/sigv4-verify');

function parseArgs(argv) {
  const opts = { upstream: null, verify: false, portFile: null, delayMs: 0 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--upstream') opts.upstream = argv[++i];
    else if (a === '--verify-sigv4') opts.verify = true;
    else if (a === '--port-file') opts.portFile = argv[++i];
    else if (a === '--delay-ms') {
      const v = argv[++i];
      if (!/^[0-9]+$/.test(v || '') || Number(v) > 600000) throw new Error(`--delay-ms wants ms from 0 to 600000, not ${v}`);
      opts.delayMs = Number(v);
    }
    else throw new Error(`unknown argument: ${a}`);
  }
  if (!opts.upstream) throw new Error('--upstream URL is required');
  return opts;
}

let opts;
try {
  opts = parseArgs(process.argv.slice(2));
} catch (e) {
  process.stderr.write(`front.js: ${e.message}\nusage: front.js --upstream URL [--verify-sigv4] [--port-file FILE] [--delay-ms N]\n`);
  process.exit(2);
}
const upstream = new URL(opts.upstream);
// Keep-alive to the upstream: put-many sends thousands of small requests.
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
const faults = new FaultRules();
let requestLog = [];
const stallTimers = new Set();
const delay = ms => new Promise(resolve => setTimeout(resolve, ms));

// Hop-by-hop headers are the proxy's own business on each side.
const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'upgrade', 'te', 'trailer'];

function sendJson(res, status, value) {
  const body = JSON.stringify(value) + '\n';
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', c => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function control(req, res) {
  const path = req.url.split('?')[0];
  if (path === '/__hangar/ping' && req.method === 'GET') {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    return res.end('ok\n');
  }
  if (path === '/__hangar/faults') {
    if (req.method === 'GET') return sendJson(res, 200, faults);
    if (req.method === 'DELETE') { faults.clear(); res.writeHead(204); return res.end(); }
    if (req.method === 'POST') {
      const body = await readBody(req);
      try {
        return sendJson(res, 201, faults.add(JSON.parse(body.toString('utf8'))).id);
      } catch (e) {
        return sendJson(res, 400, { error: e.message });
      }
    }
  }
  if (path === '/__hangar/requests') {
    if (req.method === 'GET') return sendJson(res, 200, requestLog);
    if (req.method === 'DELETE') { requestLog = []; res.writeHead(204); return res.end(); }
  }
  return sendJson(res, 404, { error: `no control endpoint ${req.method} ${path}` });
}

// Faults answered without asking the upstream (the request never reaches it).
function answerFault(rule, res) {
  if (rule.kind === 'reset') {
    // No response at all: the client sees the connection drop (ECONNRESET or
    // an empty reply, depending on timing).
    res.socket.destroy();
    return;
  }
  const headers = {};
  if (rule.retry_after !== null) headers['Retry-After'] = String(rule.retry_after);
  if (rule.kind === '500') return sendError(res, 500, 'InternalError', 'We encountered an internal error. Please try again.', {}, headers);
  if (rule.kind === '503') return sendError(res, 503, 'SlowDown', 'Please reduce your request rate.', {}, headers);
  if (rule.kind === '429') {
    // S3 itself says 503 SlowDown; 429 is what generic HTTP servers and CDNs
    // send, and hangar must honour Retry-After on both.
    if (!headers['Retry-After']) headers['Retry-After'] = '1';
    return sendError(res, 429, 'TooManyRequests', 'Too many requests.', {}, headers);
  }
  throw new Error(`not an immediate fault: ${rule.kind}`);
}

// s3rver stores objects through path.join, so a "." or ".." segment in a key
// would alias another key or escape its data directory.  Real S3 keeps such
// keys verbatim; rather than let s3rver silently differ, refuse them (after
// the signature check, so such keys still exercise the verifier).
function hasDotSegment(rawPath) {
  return rawPath.split('/').some(seg => {
    let s;
    try { s = decodeURIComponent(seg); } catch (e) { return false; }
    return s === '.' || s === '..';
  });
}

function forward(req, res, body, rule, entry) {
  const headers = { ...req.headers };
  for (const h of HOP_BY_HOP) delete headers[h];
  delete headers.expect; // the body is already read, nothing to wait for
  if (opts.verify) {
    // Signature checked here; s3rver checks V4 signatures only against its own
    // S3RVER key, so it gets an anonymous request.  x-amz-* headers stay: they
    // tell s3rver this is an API (not website) request and carry metadata.
    delete headers.authorization;
    delete headers['x-amz-security-token'];
  }
  if (body.length || req.method === 'PUT' || req.method === 'POST') headers['content-length'] = String(body.length);

  const up = http.request({
    host: upstream.hostname,
    port: upstream.port,
    method: req.method,
    path: req.url, // raw: no normalization, no re-encoding
    headers,
    agent,
  }, upres => {
    const outHeaders = { ...upres.headers };
    for (const h of HOP_BY_HOP) delete outHeaders[h];

    if (rule && rule.kind === 'truncate') {
      // Full Content-Length promised, half the body delivered, then the
      // connection closes: the client must notice the short read.
      const chunks = [];
      upres.on('data', c => chunks.push(c));
      upres.on('end', () => {
        const full = Buffer.concat(chunks);
        outHeaders['content-length'] = String(full.length);
        res.writeHead(upres.statusCode, outHeaders);
        entry.status = upres.statusCode; // 'finish' never comes
        res.write(full.subarray(0, Math.floor(full.length / 2)), () => res.socket && res.socket.destroy());
      });
      return;
    }
    if (rule && rule.kind === 'stall') {
      // Headers go out, then silence until stall_ms, then the connection closes.
      upres.resume();
      res.writeHead(upres.statusCode, outHeaders);
      res.flushHeaders();
      entry.status = upres.statusCode; // 'finish' never comes
      const timer = setTimeout(() => {
        stallTimers.delete(timer);
        if (res.socket) res.socket.destroy();
      }, rule.stall_ms);
      stallTimers.add(timer);
      res.socket.on('close', () => { clearTimeout(timer); stallTimers.delete(timer); });
      return;
    }
    res.writeHead(upres.statusCode, outHeaders);
    upres.pipe(res);
  });
  up.on('error', err => {
    if (!res.headersSent) sendError(res, 502, 'BadGateway', `hangar test front: upstream ${opts.upstream}: ${err.message}`);
    else res.socket && res.socket.destroy();
  });
  up.end(body);
}

async function handle(req, res) {
  if (req.url.startsWith('/__hangar/')) return control(req, res);

  const q = req.url.indexOf('?');
  const entry = {
    method: req.method,
    path: q < 0 ? req.url : req.url.slice(0, q),
    query: q < 0 ? '' : req.url.slice(q + 1),
    status: null, // the status sent; stays null for reset (nothing is sent)
    fault: null,
  };
  requestLog.push(entry);
  res.on('finish', () => { entry.status = res.statusCode; });
  if (opts.delayMs) await delay(opts.delayMs);

  const rule = faults.take(req.method, req.url);
  if (rule) entry.fault = rule.kind;
  if (rule && !['truncate', 'stall'].includes(rule.kind)) {
    req.resume(); // discard any body; the answer does not depend on it
    return answerFault(rule, res);
  }

  const body = await readBody(req);
  if (opts.verify) {
    const err = sigv4.verify(req, body);
    if (err) {
      entry.fault = null; // a truncate/stall rule is used up but not applied
      return sendError(res, err.status, err.code, err.message, err.extra);
    }
    if (hasDotSegment(entry.path)) {
      return sendError(res, 400, 'HangarUnsupportedKey', 'The test S3 server (s3rver) cannot store keys with "." or ".." path segments.');
    }
  }
  forward(req, res, body, rule, entry);
}

const server = http.createServer((req, res) => {
  handle(req, res).catch(err => {
    process.stderr.write(`front.js: ${err.stack}\n`);
    if (!res.headersSent) sendError(res, 500, 'InternalError', `hangar test front: ${err.message}`);
  });
});
// The socket a fault destroyed is expected to error; nothing to report.
server.on('clientError', (err, socket) => socket.destroy());

server.listen(0, '127.0.0.1', () => {
  const port = server.address().port;
  if (opts.portFile) {
    fs.writeFileSync(opts.portFile + '.tmp', `${port}\n`);
    fs.renameSync(opts.portFile + '.tmp', opts.portFile);
  }
  process.stdout.write(`${port}\n`);
});

function stop() {
  for (const t of stallTimers) clearTimeout(t);
  server.close();
  server.closeAllConnections();
  agent.destroy();
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
