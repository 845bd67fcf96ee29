#!/usr/bin/env python3
"""Render pages in headless Chromium for the HTML report's test
(tests/cli/test_html.sh), one browser for all of them, driven over the
DevTools protocol on a pipe (--remote-debugging-pipe: JSON messages ended by
NUL on fds 3 and 4; no websocket, no network).

  cdp_render.py CHROME OUTDIR URL NAME HEIGHT [CHART...] [-- URL NAME HEIGHT ...]

For each page, opened offline in a 1400 x HEIGHT window, waits for the
page's script to mark it ready (<html data-ready="1">, 20 s at most), then
writes into OUTDIR:
  NAME.png     a screenshot of the window
  NAME.dom     the DOM after the script ran (document.documentElement.outerHTML)
  NAME.log     every console message, uncaught exception and browser log
               entry (a resource that failed to load...), one a line
  NAME.CHART.png  for each CHART (an element id), a screenshot of its box
Exits 1 if the browser cannot be driven.
"""
import base64
import json
import os
import select
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, chrome, profile):
        self.rd, cw = os.pipe()   # the browser writes on its fd 4
        cr, self.wr = os.pipe()   # and reads on its fd 3
        args = [chrome, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir=" + profile,
                "--remote-debugging-pipe", "about:blank"]

        # the pipes' ends at 3 and 4 in the browser; the other descriptors
        # of this process are not inheritable (PEP 446), so none goes along
        # (through copies: dup2 of a descriptor onto itself would keep its
        # close-on-exec flag)
        def fds():
            a, b = os.dup(cr), os.dup(cw)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(args, preexec_fn=fds, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, close_fds=False)
        os.close(cr)
        os.close(cw)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.wr, json.dumps(msg).encode() + b"\0")
        return self.next_id

    def read(self, timeout):
        end = time.time() + timeout
        while b"\0" not in self.buf:
            left = end - time.time()
            if left <= 0:
                raise TimeoutError("no answer from the browser")
            r, _, _ = select.select([self.rd], [], [], left)
            if r:
                chunk = os.read(self.rd, 1 << 20)
                if not chunk:
                    raise EOFError("the browser went away")
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=30):
        i = self.send(method, params, session)
        while True:
            m = self.read(timeout)
            if m.get("id") == i:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, name, timeout):
        for k, m in enumerate(self.events):
            if m.get("method") == name:
                del self.events[k]
                return m
        end = time.time() + timeout
        while time.time() < end:
            m = self.read(end - time.time())
            if m.get("method") == name:
                return m
            self.events.append(m)
        raise TimeoutError(name)

    def close(self):
        try:
            self.send("Browser.close")
        except OSError:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def messages(events):
    out = []
    for m in events:
        p = m.get("params", {})
        if m.get("method") == "Runtime.consoleAPICalled":
            out.append("console.%s: %s" % (p.get("type"), " ".join(str(a.get("value", a.get("description", "")))
                                                                  for a in p.get("args", []))))
        elif m.get("method") == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            out.append("exception: %s %s" % (d.get("text", ""), d.get("exception", {}).get("description", "")))
        elif m.get("method") == "Log.entryAdded":
            e = p.get("entry", {})
            out.append("log.%s: %s %s" % (e.get("level"), e.get("text", ""), e.get("url", "")))
    return out


def render(b, session, outdir, url, name, height, charts):
    b.events = []
    b.call("Emulation.setDeviceMetricsOverride",
           {"width": 1400, "height": height, "deviceScaleFactor": 1, "mobile": False}, session)
    nav = b.call("Page.navigate", {"url": url}, session)
    if nav.get("errorText"):
        b.events.append({"method": "Log.entryAdded", "params": {"entry": {
            "level": "error", "text": "cannot open: " + nav["errorText"], "url": url}}})
    end = time.time() + (0 if nav.get("errorText") else 20)
    ready = None
    while time.time() < end:
        r = b.call("Runtime.evaluate", {"expression": "document.readyState == 'complete' && "
                                        "document.documentElement.getAttribute('data-ready')",
                                        "returnByValue": True}, session)
        ready = r.get("result", {}).get("value")
        if ready == "1":
            break
        time.sleep(0.05)
    dom = b.call("Runtime.evaluate", {"expression": "document.documentElement.outerHTML",
                                      "returnByValue": True}, session)["result"].get("value", "")
    with open(os.path.join(outdir, name + ".dom"), "w", encoding="utf-8") as f:
        f.write(dom)
    shot = b.call("Page.captureScreenshot", {"format": "png"}, session)
    with open(os.path.join(outdir, name + ".png"), "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    for c in charts:
        r = b.call("Runtime.evaluate", {"expression": "(function(){var e=document.getElementById(%s);"
                                        "if(!e)return null;var r=e.getBoundingClientRect();"
                                        "return [r.left+scrollX,r.top+scrollY,r.width,r.height]})()" % json.dumps(c),
                                        "returnByValue": True}, session)
        box = r.get("result", {}).get("value")
        path = os.path.join(outdir, "%s.%s.png" % (name, c))
        if not box or box[2] <= 0 or box[3] <= 0:
            if os.path.exists(path):
                os.unlink(path)
            continue
        shot = b.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                 "clip": {"x": box[0], "y": box[1], "width": box[2],
                                                          "height": box[3], "scale": 1}}, session)
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
    # what arrived while the page loaded and ran
    with open(os.path.join(outdir, name + ".log"), "w", encoding="utf-8") as f:
        for line in messages(b.events):
            f.write(line + "\n")
        if ready != "1":
            f.write("not ready: data-ready=%r\n" % (ready,))


def main():
    chrome, outdir, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    pages, cur = [], []
    for a in rest + ["--"]:
        if a == "--":
            if cur:
                pages.append(cur)
            cur = []
        else:
            cur.append(a)
    with tempfile.TemporaryDirectory() as profile:
        b = Browser(chrome, profile)
        try:
            targets = b.call("Target.getTargets")["targetInfos"]
            page = next(t for t in targets if t["type"] == "page")
            session = b.call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})["sessionId"]
            for m in ("Page.enable", "Runtime.enable", "Log.enable"):
                b.call(m, None, session)
            for p in pages:
                render(b, session, outdir, p[0], p[1], int(p[2]), p[3:])
        except (RuntimeError, TimeoutError, EOFError, StopIteration, OSError) as e:
            print("cdp_render: %s" % e, file=sys.stderr)
            return 1
        finally:
            b.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
