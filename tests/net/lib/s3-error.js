'use strict';
// S3's error response: an XML <Error> document.  hangar parses these bodies
// (Code decides retry vs. give up), so the front answers with the same shape
// real S3 uses rather than a plain-text message.

let nextRequestId = 1;

function xmlEscape(s) {
  return String(s).replace(/[<>&'"]/g, c => ({
    '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;',
  })[c]);
}

// extra: further child elements S3 adds for some codes (e.g. Region,
// HeadersNotSigned), as {Name: value}.
function errorXml(code, message, extra = {}) {
  // Deterministic ids (a counter), so test output does not vary run to run.
  const requestId = String(nextRequestId++).padStart(16, '0');
  let body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error>' +
    `<Code>${xmlEscape(code)}</Code><Message>${xmlEscape(message)}</Message>`;
  for (const [name, value] of Object.entries(extra)) {
    body += `<${name}>${xmlEscape(value)}</${name}>`;
  }
  return body + `<RequestId>${requestId}</RequestId></Error>\n`;
}

// Sends a complete S3 error response; headers: extra response headers.
function sendError(res, status, code, message, extra = {}, headers = {}) {
  const body = errorXml(code, message, extra);
  res.writeHead(status, {
    'Content-Type': 'application/xml',
    'Content-Length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

module.exports = { errorXml, sendError, xmlEscape };
