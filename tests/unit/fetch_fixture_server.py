#!/usr/bin/env python3
"""Loopback HTTP server for tests/unit/test_fetch.c (stdlib only).

usage: fetch_fixture_server.py [REPORTS]

Prints its port on stdout, then serves until stdin closes.  Content is
generated: /files/NAME is ("content of NAME\\n" * 10).  With REPORTS (a file
of one report a line: tests/net/ingest-endless), the objects of the
listings below that never end are those reports instead, one line each, a
new line for each new key.  Paths:

  /files/NAME                 the content
  /fail/KIND/N/NAME           KIND (500, 429, reset, trunc, stall) for the first N requests, then the content
  /always500/NAME             500 every time
  /slow/NAME                  the content after 0.3 s (counts concurrency)
  /gzenc/NAME                 the content with Content-Encoding: gzip
  /gzfile/NAME.gz             a gzip file of the content
  /bomb/NAME.gz               gzip of 8 MiB of zeros
  /redirect-other/NAME        302 to http://localhost:PORT/files/NAME (another host name)
  /redirect-same/NAME         302 to /files/NAME
  /auth/NAME                  the content with Basic user:pass, else 401
  /jdir/, /hdir/              nginx autoindex (JSON / HTML) with a subdirectory
  /list.txt                   a manifest
  /dup-list.txt               a manifest naming one object twice
  /bucket/...                 a small S3 (path-style) that checks SigV4 and x-amz-content-sha256
  /stats                      JSON: requests per path, max concurrency, the gate's outcome
  S3 listings (path-style, anonymous), 2 objects a page, whose objects are served:
  /endless/                   never ends: a new continuation token on every page
  /slowlist/                  never ends; pages after the third take 60 s to come
  /looptok/                   repeats its second page's token
  /flaky/                     one page, 503 the first time it is asked for
  /gate/                      two pages; the second waits (at most 5 s) until an object was
                              asked for: /stats "gate" says whether one was (true) or not
  /tree/                      an autoindex (JSON) that never ends: 2 files and 10 folders in
                              every folder, 20 levels deep
"""
import base64, gzip, hashlib, hmac, json, socket, sys, threading, time, urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
COUNTS = {}
ACTIVE = [0, 0]  # current, max
REPORTS = []     # argv[1]'s lines, served as the endless listings' objects
SERVED = {}      # key -> the REPORTS line it got
GATE = {"event": threading.Event(), "by_object": None}
LISTINGS = ("endless", "slowlist", "looptok", "flaky", "gate")
AKID, SECRET = "AKIDTESTFETCH", "fixture/secret+key"
S3_KEYS = ["a b.json", "dir/x+y=z.txt", "pct%41.txt", "unicod\u00e9/\u65e5\u672c.json", "zz.gz"]


def content(name):
    return ("content of %s\n" % name).encode() * 10


def body_of(key):
    """An object of the listings that never end: its name's content, or a
    report of REPORTS (each key its own, as long as there are lines)."""
    if not REPORTS:
        return content(key.split("/")[-1])
    with LOCK:
        if key not in SERVED:
            SERVED[key] = REPORTS[len(SERVED) % len(REPORTS)]
        return SERVED[key]


def s3_body(key):
    if key.endswith(".gz"):
        return gzip.compress(content(key))
    return content(key)


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def setup(self):
        super().setup()
        # Headers and body go in two writes: without TCP_NODELAY the body
        # waits for the client's delayed ACK (40 ms) on a reused connection.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def send(self, code, body=b"", headers=()):
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path = self.path.split("?")[0]
        with LOCK:
            COUNTS[path] = COUNTS.get(path, 0) + 1
            n = COUNTS[path]
        self.route(path, n)

    def route(self, path, n):
        parts = path.split("/")
        if path == "/stats":
            with LOCK:
                body = json.dumps({"counts": COUNTS, "max_active": ACTIVE[1],
                                   "gate": GATE["by_object"]}).encode()
            return self.send(200, body)
        if path == "/reset":
            with LOCK:
                COUNTS.clear()
                ACTIVE[1] = 0
            return self.send(200)
        if parts[1] == "files":
            return self.send(200, content(parts[-1]))
        if parts[1] == "fail":
            kind, times, name = parts[2], int(parts[3]), parts[-1]
            if n <= times:
                return self.fault(kind, name)
            return self.send(200, content(name))
        if parts[1] == "always500":
            return self.send(500, b"no")
        if parts[1] == "slow":  # the only requests counted for concurrency
            with LOCK:
                ACTIVE[0] += 1
                ACTIVE[1] = max(ACTIVE[1], ACTIVE[0])
            time.sleep(0.3)
            with LOCK:
                ACTIVE[0] -= 1
            return self.send(200, content(parts[-1]))
        if parts[1] == "gzenc":
            return self.send(200, gzip.compress(content(parts[-1])), [("Content-Encoding", "gzip")])
        if parts[1] == "gzfile":
            return self.send(200, gzip.compress(content(parts[-1][:-3])))
        if parts[1] == "bomb":
            return self.send(200, gzip.compress(b"\0" * (8 << 20)))
        if parts[1] == "redirect-other":
            port = self.server.server_address[1]
            return self.send(302, b"", [("Location", "http://localhost:%d/files/%s" % (port, parts[-1]))])
        if parts[1] == "redirect-same":
            return self.send(302, b"", [("Location", "/files/" + parts[-1])])
        if parts[1] == "auth":
            want = "Basic " + base64.b64encode(b"user:pass").decode()
            if self.headers.get("Authorization") != want:
                return self.send(401, b"who?", [("WWW-Authenticate", 'Basic realm="x"')])
            return self.send(200, content(parts[-1]))
        if parts[1] in ("jdir", "hdir"):
            return self.autoindex(parts[1], path)
        if path == "/list.txt":
            body = b"# a manifest\n\nfiles/m1.json\n  /files/m2.json  \nhttp://127.0.0.1:%d/files/m3.json\n" % self.server.server_address[1]
            return self.send(200, body)
        if path == "/dup-list.txt":
            return self.send(200, b"files/m1.json\nfiles/m2.json\n/files/m1.json\n")
        if parts[1] == "bucket":
            return self.s3(path)
        if parts[1] in LISTINGS:
            return self.listing(parts[1], "/".join(parts[2:]))
        if parts[1] == "tree":
            return self.tree(parts[2:])
        return self.send(404, b"not here")

    # ---- listings that never end ----
    def object(self, key):
        return self.send(200, body_of(key))

    def listing(self, bucket, key):
        if key:
            if bucket == "gate":
                GATE["event"].set()
            return self.object(bucket + "/" + key)
        qs = urllib.parse.parse_qs(self.path.partition("?")[2], keep_blank_values=True)
        page = int(qs.get("continuation-token", ["t0"])[0][1:] or 0)
        more, token = True, "t%d" % (page + 1)
        if bucket == "slowlist" and page >= 3:
            time.sleep(60)  # the client gives up first (daemon thread: no wait at exit)
        if bucket == "looptok" and page >= 1:
            token = "t2"
        if bucket == "flaky":
            if COUNTS["/flaky/"] == 1:
                return self.send(503, b"busy")
            more = False
        if bucket == "gate" and page == 1:
            GATE["by_object"] = GATE["event"].wait(5)
            more = False
        keys = ["p%05d-%d.json" % (page, i) for i in range(2)]
        out = ['<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult>',
               "<Name>%s</Name><IsTruncated>%s</IsTruncated>" % (bucket, "true" if more else "false")]
        for k in keys:
            b = body_of(bucket + "/" + k)
            out.append("<Contents><Key>%s</Key><ETag>&quot;%s&quot;</ETag><Size>%d</Size></Contents>"
                       % (k, hashlib.md5(b).hexdigest(), len(b)))
        if more:
            out.append("<NextContinuationToken>%s</NextContinuationToken>" % token)
        out.append("</ListBucketResult>")
        return self.send(200, "".join(out).encode(), [("Content-Type", "application/xml")])

    def tree(self, segs):
        if segs and segs[-1]:
            return self.object("tree/" + "/".join(segs))
        depth = len(segs) - 1
        folder = "tree/" + "/".join(segs)
        items = [{"name": "f%d.json" % i, "type": "file", "size": len(body_of(folder + "f%d.json" % i))}
                 for i in range(2)]
        if depth < 20:
            items += [{"name": "d%d" % i, "type": "directory"} for i in range(10)]
        return self.send(200, json.dumps(items).encode(), [("Content-Type", "application/json")])

    def fault(self, kind, name):
        if kind in ("500", "429"):
            return self.send(int(kind), b"busy", [("Retry-After", "1")] if kind == "429" else [])
        if kind == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")
            self.close_connection = True
            self.connection.close()
            return
        body = content(name)
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[:20])
        self.wfile.flush()
        if kind == "stall":
            time.sleep(3)
        self.close_connection = True

    def autoindex(self, kind, path):
        sub = path.endswith("/sub/")
        files = [("deep.json", 7)] if sub else [("a b.json", 12), ("c&d.json", 5)]
        dirs = [] if sub else ["sub"]
        if kind == "jdir":
            items = [{"name": d, "type": "directory", "mtime": "Sat, 29 Nov 2026 20:49:58 GMT"} for d in dirs]
            items += [{"name": f, "type": "file", "mtime": "Sat, 29 Nov 2026 20:49:58 GMT", "size": s} for f, s in files]
            return self.send(200, json.dumps(items).encode(), [("Content-Type", "application/json")])
        lines = ['<html>\r\n<head><title>Index of %s</title></head>\r\n<body>\r\n<h1>Index of %s</h1><hr><pre><a href="../">../</a>\r\n' % (path, path)]
        for d in dirs:
            lines.append('<a href="%s/">%s/</a>%s29-Nov-2026 20:49                   -\r\n' % (d, d, " " * 40))
        for f, s in files:
            href = urllib.parse.quote(f).replace("&", "&amp;")
            lines.append('<a href="%s">%s</a>%s29-Nov-2026 20:49  %10d\r\n' % (href, f.replace("&", "&amp;"), " " * 30, s))
        lines.append("</pre><hr></body>\r\n</html>\r\n")
        return self.send(200, "".join(lines).encode(), [("Content-Type", "text/html")])

    # ---- S3 ----
    def s3_error(self, code, status, msg):
        body = ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>%s</Code><Message>%s</Message>'
                '<RequestId>1</RequestId></Error>' % (code, msg)).encode()
        return self.send(status, body, [("Content-Type", "application/xml")])

    def s3_check(self, raw_path, raw_query):
        auth = self.headers.get("Authorization")
        if not auth:
            return "AccessDenied"
        if self.headers.get("x-amz-content-sha256") is None:
            return "MissingContentSHA256"
        fields = dict(p.strip().split("=", 1) for p in auth[len("AWS4-HMAC-SHA256 "):].split(","))
        akid, date, region, service, _ = fields["Credential"].split("/")
        if akid != AKID:
            return "InvalidAccessKeyId"
        signed = fields["SignedHeaders"].split(";")
        if "x-amz-content-sha256" not in signed:
            return "SignatureDoesNotMatch"
        q = "&".join(sorted(p for p in raw_query.split("&") if p)) if raw_query else ""
        canon_headers = "".join("%s:%s\n" % (h, " ".join(self.headers.get(h, "").split())) for h in signed)
        creq = "\n".join(["GET", raw_path, q, canon_headers, fields["SignedHeaders"],
                          self.headers["x-amz-content-sha256"]])
        scope = "/".join([date, region, service, "aws4_request"])
        sts = "\n".join(["AWS4-HMAC-SHA256", self.headers["x-amz-date"], scope,
                         hashlib.sha256(creq.encode()).hexdigest()])
        k = ("AWS4" + SECRET).encode()
        for part in (date, region, service, "aws4_request"):
            k = hmac.new(k, part.encode(), hashlib.sha256).digest()
        if hmac.new(k, sts.encode(), hashlib.sha256).hexdigest() != fields["Signature"]:
            return "SignatureDoesNotMatch"
        return None

    def s3(self, path):
        raw_path, _, raw_query = self.path.partition("?")
        err = self.s3_check(raw_path, raw_query)
        if err:
            status = 400 if err == "MissingContentSHA256" else 403
            return self.s3_error(err, status, "denied: " + err)
        key = urllib.parse.unquote(raw_path[len("/bucket/"):])
        if key:
            if key not in S3_KEYS:
                return self.s3_error("NoSuchKey", 404, "no such key")
            return self.send(200, s3_body(key))
        qs = urllib.parse.parse_qs(raw_query, keep_blank_values=True)
        prefix = qs.get("prefix", [""])[0]
        start = int(qs.get("continuation-token", ["0"])[0].replace("tok/", "") or 0)
        keys = sorted(k for k in S3_KEYS if k.startswith(prefix))
        page = keys[start:start + 2]
        more = start + 2 < len(keys)
        out = ['<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
               "<Name>bucket</Name><Prefix>%s</Prefix><KeyCount>%d</KeyCount><MaxKeys>2</MaxKeys>" % (prefix, len(page)),
               "<IsTruncated>%s</IsTruncated>" % ("true" if more else "false")]
        for k in page:
            b = s3_body(k)
            out.append("<Contents><Key>%s</Key><LastModified>2026-11-29T20:49:58.000Z</LastModified>"
                       "<ETag>&quot;%s&quot;</ETag><Size>%d</Size><StorageClass>STANDARD</StorageClass></Contents>"
                       % (k.replace("&", "&amp;"), hashlib.md5(b).hexdigest(), len(b)))
        if more:
            out.append("<NextContinuationToken>tok/%d</NextContinuationToken>" % (start + 2))
        out.append("</ListBucketResult>")
        return self.send(200, "".join(out).encode(), [("Content-Type", "application/xml")])


class Server(ThreadingHTTPServer):
    request_queue_size = 64  # the default 5 drops SYNs of 8 parallel connects
    daemon_threads = True


def main():
    if len(sys.argv) > 1:
        with open(sys.argv[1], "rb") as f:
            REPORTS.extend(l + b"\n" for l in f.read().split(b"\n") if l.strip())
    srv = Server(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    print(srv.server_address[1], flush=True)
    sys.stdin.read()  # the test closes our stdin (or dies) when done


if __name__ == "__main__":
    main()
