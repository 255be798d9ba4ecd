#!/usr/bin/env node
'use strict';
// Runs s3rver on 127.0.0.1, on a port the kernel picks, keeping its data in
// DATA_DIR; writes the port to PORT_FILE once it is listening.  Silent: only
// errors reach stderr.  Stops on SIGTERM/SIGINT.
//
//   node --openssl-legacy-provider s3rver-run.js DATA_DIR PORT_FILE
//
// s3rver 3.7.1 encrypts ListObjectsV2 continuation tokens with DES, which
// OpenSSL 3 (node >= 17) only has in its legacy provider: without the flag
// every truncated listing fails with 500 InternalError.

const fs = require('fs');
const S3rver = require('s3rver');

const [dataDir, portFile] = process.argv.slice(2);
if (!dataDir || !portFile) {
  process.stderr.write('usage: s3rver-run.js DATA_DIR PORT_FILE\n');
  process.exit(2);
}
try {
  require('crypto').createCipheriv('des', Buffer.alloc(8), Buffer.alloc(8));
} catch (e) {
  process.stderr.write('s3rver-run.js: DES unavailable; run node with --openssl-legacy-provider\n');
  process.exit(1);
}
fs.mkdirSync(dataDir, { recursive: true });

const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  directory: dataDir,
  silent: true,
  // Keep the bucket contents across restarts on the same STATE_DIR.
  resetOnClose: false,
  // Path-style only: the front reaches s3rver as 127.0.0.1:PORT.
  vhostBuckets: false,
});

server.run().then(({ port }) => {
  fs.writeFileSync(portFile + '.tmp', `${port}\n`);
  fs.renameSync(portFile + '.tmp', portFile);
}, err => {
  process.stderr.write(`s3rver-run.js: ${err.stack}\n`);
  process.exit(1);
});

function stop() {
  server.close().finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
