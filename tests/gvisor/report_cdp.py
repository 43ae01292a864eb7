#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Opens a batch report in headless Chromium (started here, DevTools over --remote-debugging-pipe:
no port, no websocket) and checks what an operator sees:
  report_cdp.py CHROMIUM REPORT.html SUMMARY.json SCREENSHOT.png
- one row per manifest line, and verdict counts equal to the summary's;
- sorting by a column (the inline script) changes the order to that column's order;
- paging shows at most a page of rows with script, every row without it;
- the page requests nothing but its own file and throws no script error;
- a screenshot of the page goes to SCREENSHOT.png (the test's artifact).
Exits non-zero with the reason on any failure."""
import base64
import fcntl
import json
import os
import subprocess
import sys
import tempfile
import time

chromium, report, summary_path, screenshot = sys.argv[1:5]
summary = json.load(open(summary_path))
url = "file://" + os.path.abspath(report)


def fail(why):
    print("FAIL (report in chromium):", why)
    sys.exit(1)


class Browser:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="plb-report-chromium-")
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        # Chromium reads commands on fd 3 and writes replies on fd 4: the shell moves the pipe ends
        # there (numbered from 10 up first, so that neither is already 3 or 4).
        r, w = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10), fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
        os.close(to_child_r)
        os.close(from_child_w)
        self.proc = subprocess.Popen(
            ["bash", "-c", 'exec "$@" 3<&%d 4>&%d %d<&- %d>&-' % (r, w, r, w), "bash", chromium, "--headless",
             "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", "--no-first-run", "--disable-extensions",
             "--user-data-dir=" + self.profile, "about:blank"],
            pass_fds=(r, w), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(r)
        os.close(w)
        self.next_id, self.buffer, self.events = 0, b"", []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_child, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + 30
        while time.time() < deadline:
            while b"\0" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self.next_id:
                    if "error" in reply:
                        fail(method + ": " + json.dumps(reply["error"]))
                    return reply.get("result", {})
                self.events.append(reply)
            chunk = os.read(self.from_child, 1 << 20)
            if not chunk:
                fail("chromium exited")
            self.buffer += chunk
        fail(method + ": no answer in 30 s")

    def page(self, scripts=True):
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        s = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Network"):
            self.send(domain + ".enable", session=s)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": 1400, "height": 1150, "deviceScaleFactor": 1, "mobile": False}, session=s)
        if not scripts:
            self.send("Emulation.setScriptExecutionDisabled", {"value": True}, session=s)
        self.send("Page.navigate", {"url": url}, session=s)
        for _ in range(100):
            if self.eval(s, "document.readyState") == "complete":
                return s
            time.sleep(0.1)
        fail("the page did not load")

    def eval(self, session, expression):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session)
        if "exceptionDetails" in r:
            fail("evaluating " + expression + ": " + json.dumps(r["exceptionDetails"]))
        return r["result"].get("value")

    def close(self):
        self.proc.kill()
        self.proc.wait()
        subprocess.run(["rm", "-rf", self.profile])


ROWS = "[...document.querySelectorAll('#lines tbody tr')]"
browser = Browser()
try:
    s = browser.page()
    ids = browser.eval(s, ROWS + ".map(r => r.cells[0].textContent)")
    if sorted(ids) != sorted(r["id"] for r in summary["rows"]) or len(ids) != summary["lines"]:
        fail("rows %s, summary %s" % (ids, [r["id"] for r in summary["rows"]]))
    counts = dict(browser.eval(s, "[...document.querySelectorAll('#counts li')].map(li => [li.dataset.state, +li.dataset.count])"))
    if counts != summary["counts"]:
        fail("counts %s, summary %s" % (counts, summary["counts"]))
    # Markup in a value (the manifest's path) is text on the page, never an element.
    if browser.eval(s, "document.querySelectorAll('body i').length") != 0 or \
            summary["manifest"] not in browser.eval(s, "document.body.textContent"):
        fail("the manifest's path %r is not shown as text" % summary["manifest"])
    shown = browser.eval(s, "document.getElementById('total').textContent")
    if not shown.startswith(str(summary["lines"]) + " "):
        fail("total: " + shown)
    # Sorting: the wall column ascending (blanks first), then the ID column both ways.
    walls = {r["id"]: r["wall_seconds"] for r in summary["rows"]}
    headers = browser.eval(s, "[...document.querySelectorAll('#lines th')].map(h => h.textContent)")
    browser.eval(s, "document.querySelectorAll('#lines th')[%d].click()" % headers.index("wall s"))
    by_wall = browser.eval(s, ROWS + ".map(r => r.cells[0].textContent)")
    expected = sorted(ids, key=lambda i: (walls[i] is not None, walls[i] or 0))
    if [walls[i] for i in by_wall] != [walls[i] for i in expected]:
        fail("sorted by wall: %s, expected %s" % (by_wall, expected))
    browser.eval(s, "document.querySelectorAll('#lines th')[0].click()")
    up = browser.eval(s, ROWS + ".map(r => r.cells[0].textContent)")
    browser.eval(s, "document.querySelectorAll('#lines th')[0].click()")
    down = browser.eval(s, ROWS + ".map(r => r.cells[0].textContent)")
    if up != sorted(ids) or down != sorted(ids, reverse=True) or up == down:
        fail("sorted by ID: %s then %s" % (up, down))
    if browser.eval(s, "document.getElementById('pager').hidden") or \
            browser.eval(s, ROWS + ".filter(r => !r.hidden).length") != min(len(ids), 200):
        fail("the pager does not show the first page")
    if browser.eval(s, "document.querySelectorAll('svg.chart').length") != 4:
        fail("not 4 charts")
    # At a glance: each per-line chart's axis fits its data, so its tallest bar fills most of it
    # (150 is the plot's height); the wall and memory charts say their limit, as a line or in words.
    for k, name in ((0, "wall"), (2, "memory")):
        tallest = browser.eval(s, "Math.max(...[...document.querySelectorAll('svg.chart')[%d].querySelectorAll('rect')]"
                                  ".map(r => r.getBBox().height))" % k)
        if tallest < 0.5 * 150:
            fail("the %s chart's tallest bar is %s px of 150: its axis does not fit the data" % (name, tallest))
        caption = browser.eval(s, "document.querySelectorAll('figcaption')[%d].textContent" % k)
        if "limit" not in caption:
            fail("the %s chart does not say its limit: %s" % (name, caption))
    if browser.eval(s, "document.querySelectorAll('span.diag').length") != len(ids):
        fail("not every line's diagnostics file is named")
    browser.eval(s, "document.querySelectorAll('#lines th')[1].click()")  # back to line order for the picture
    shot = browser.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session=s)
    with open(screenshot, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    # Without script: every row shows, the pager stays hidden, the charts are there.
    n = browser.page(scripts=False)
    if browser.eval(n, ROWS + ".filter(r => !r.hidden).length") != len(ids) or \
            not browser.eval(n, "document.getElementById('pager').hidden") or \
            browser.eval(n, "document.querySelectorAll('svg.chart rect').length") == 0:
        fail("the page without script does not show every row and chart")
    requests = [e["params"]["request"]["url"] for e in browser.events if e.get("method") == "Network.requestWillBeSent"]
    if any(u != url for u in requests):
        fail("the page requested more than its own file: %s" % requests)
    errors = [e for e in browser.events if e.get("method") == "Runtime.exceptionThrown"]
    if errors:
        fail("script errors: %s" % errors)
finally:
    browser.close()
print("report in chromium: %d rows, counts %s, sorting works, screenshot %s" % (len(ids), counts, screenshot))
