'use strict';
// Checks an incoming request's AWS Signature Version 4 (Authorization header
// form) the way S3 does, with the fixed test credentials.  The canonical
// request and the signature come from the aws4 package, an implementation
// independent of hangar's, so a bug in hangar's signer shows up as a 403
// instead of being mirrored by the verifier.
//
// verify(req, body) returns null when the request is authentic, else
// {status, code, message, extra} describing the S3 error to answer.

const crypto = require('crypto');
const aws4 = require('aws4');

const REGION = 'us-east-1';
const SERVICE = 's3';
// S3 refuses requests whose x-amz-date is more than 15 minutes off.
const MAX_SKEW_MS = 15 * 60 * 1000;

// The only credentials the test servers know (documented in README.md).
// The second pair stands for temporary (STS) credentials: S3 then requires
// the session token in x-amz-security-token, and it is signed like any
// other x-amz-* header.
const CREDENTIALS = {
  HANGARTESTKEY0000001: { secret: 'hangar/test/secret+key', token: null },
  HANGARTESTKEY0000002: { secret: 'hangar-session-secret', token: 'hangar-session-token' },
};

function fail(status, code, message, extra = {}) {
  return { status, code, message, extra };
}

const malformed = message => fail(400, 'AuthorizationHeaderMalformed', message);

// "AWS4-HMAC-SHA256 Credential=a/b, SignedHeaders=c;d, Signature=e": the
// three fields may come in any order, separated by "," with optional spaces.
function parseAuthorization(value) {
  const prefix = 'AWS4-HMAC-SHA256 ';
  if (!value.startsWith(prefix)) return null;
  const fields = {};
  for (const part of value.slice(prefix.length).split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return null;
    fields[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  if (!fields.Credential || !fields.SignedHeaders || !fields.Signature) return null;
  return fields;
}

function parseAmzDate(s) {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s || '');
  if (!m) return null;
  return Date.UTC(+m[1], m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
}

function verify(req, body) {
  const headers = req.headers; // node lower-cases header names
  const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '';

  if (!('authorization' in headers)) {
    if (/(^|&)X-Amz-Algorithm=/.test(query)) {
      return fail(501, 'NotImplemented', 'The test front only accepts signatures in the Authorization header, not presigned URLs.');
    }
    return fail(403, 'AccessDenied', 'Access Denied (anonymous requests are refused).');
  }
  // Checked before the signature, like s3rver and S3 do for V4 requests.
  const payloadHash = headers['x-amz-content-sha256'];
  if (payloadHash === undefined) {
    return fail(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
  }

  const auth = parseAuthorization(headers.authorization);
  if (!auth) return malformed('The authorization header is malformed; expected AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...');

  const scope = auth.Credential.split('/');
  if (scope.length !== 5) return malformed('The authorization header is malformed; the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".');
  const [accessKeyId, scopeDate, region, service, terminator] = scope;
  const account = Object.prototype.hasOwnProperty.call(CREDENTIALS, accessKeyId) ? CREDENTIALS[accessKeyId] : null;
  if (!account) {
    return fail(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.', { AWSAccessKeyId: accessKeyId });
  }
  if (region !== REGION) {
    // What S3 answers when a client signs for the wrong region.
    return fail(400, 'AuthorizationHeaderMalformed', `The authorization header is malformed; the region '${region}' is wrong; expecting '${REGION}'`, { Region: REGION });
  }
  if (service !== SERVICE || terminator !== 'aws4_request') {
    return malformed(`The authorization header is malformed; incorrect service "${service}" or terminal "${terminator}". This endpoint belongs to "${SERVICE}".`);
  }

  const amzDate = headers['x-amz-date'];
  const when = parseAmzDate(amzDate);
  if (when === null) {
    return fail(403, 'AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
  }
  if (scopeDate !== amzDate.slice(0, 8)) {
    return malformed(`The authorization header is malformed; Invalid credential date "${scopeDate}". This date is not the same as X-Amz-Date: "${amzDate.slice(0, 8)}".`);
  }
  if (Math.abs(Date.now() - when) > MAX_SKEW_MS) {
    return fail(403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.', { RequestTime: amzDate, ServerTime: new Date().toISOString() });
  }

  // Temporary credentials must come with their token; permanent ones must not.
  const token = headers['x-amz-security-token'];
  if ((account.token || undefined) !== token) {
    return fail(403, 'InvalidToken', 'The provided token is malformed or otherwise invalid.');
  }

  const signedNames = auth.SignedHeaders.split(';');
  if (!signedNames.includes('host')) {
    return fail(403, 'AccessDenied', 'There were headers present in the request which were not signed', { HeadersNotSigned: 'host' });
  }
  // S3 insists that every x-amz-* header sent is also signed.
  const unsigned = Object.keys(headers).filter(h => h.startsWith('x-amz-') && !signedNames.includes(h));
  if (unsigned.length) {
    return fail(403, 'AccessDenied', 'There were headers present in the request which were not signed', { HeadersNotSigned: unsigned.join(', ') });
  }

  // Recompute the signature over exactly the headers the client says it
  // signed.  A signed header missing from the request is canonicalized as
  // empty, so the signature cannot match.  extraHeadersToInclude stops aws4
  // from dropping headers it normally leaves unsigned (user-agent, range...).
  const signedHeaders = {};
  const include = {};
  for (const name of signedNames) {
    signedHeaders[name] = headers[name] === undefined ? '' : String(headers[name]);
    include[name] = true;
  }
  let expected;
  let signer;
  try {
    signer = new aws4.RequestSigner({
      method: req.method,
      path: req.url, // raw, as sent: S3 neither normalizes nor double-encodes it
      headers: signedHeaders,
      service: SERVICE,
      region: REGION,
      doNotModifyHeaders: true, // never add headers the client did not send
      extraHeadersToInclude: include,
    }, { accessKeyId, secretAccessKey: account.secret });
    signer.datetime = amzDate; // doNotModifyHeaders makes aws4 skip reading it
    expected = signer.signature();
  } catch (e) {
    // decodeURIComponent on a malformed %-escape
    return fail(400, 'InvalidURI', `Couldn't parse the specified URI: ${e.message}`);
  }
  const provided = auth.Signature;
  if (provided.length !== expected.length ||
      !crypto.timingSafeEqual(Buffer.from(provided), Buffer.from(expected))) {
    return fail(403, 'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
      { AWSAccessKeyId: accessKeyId, StringToSign: signer.stringToSign(), CanonicalRequest: signer.canonicalString() });
  }

  // The payload hash is covered by the signature; now check the payload.
  if (payloadHash === 'UNSIGNED-PAYLOAD') return null;
  if (/^[0-9a-f]{64}$/.test(payloadHash)) {
    const actual = crypto.createHash('sha256').update(body).digest('hex');
    if (actual !== payloadHash) {
      return fail(400, 'XAmzContentSHA256Mismatch', "The provided 'x-amz-content-sha256' header does not match what was computed.",
        { ClientComputedContentSHA256: payloadHash, S3ComputedContentSHA256: actual });
    }
    return null;
  }
  if (payloadHash.startsWith('STREAMING-')) {
    return fail(501, 'NotImplemented', 'The test front does not decode aws-chunked (streaming) payloads.');
  }
  return fail(400, 'InvalidArgument', 'x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, or a valid sha256 value.',
    { ArgumentName: 'x-amz-content-sha256', ArgumentValue: payloadHash });
}

module.exports = { verify, CREDENTIALS, REGION };
