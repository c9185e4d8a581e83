#!/usr/bin/env python3
"""Loads the console page in headless Chromium and checks it as a person would.

Drives Chromium through the DevTools protocol over a pipe (--remote-debugging-pipe: JSON
messages separated by NUL on file descriptors 3 and 4), so it needs only Python's standard
library. Opens URL, waits for live updates from the page's event stream, reads what the page drew
(`window.fieldloc`: updates, satellites plotted, headings seen) and the sky plot's satellite
circles, saves a screenshot, and prints one JSON object:

    {"updates": N, "satellites": N, "sky_circles": N, "headings": [...], "screenshot": PATH}

Usage: page_check.py URL SCREENSHOT.png [--seconds 20] [--min-updates 3] [--width 1200 --height 1500]
Exit status: 0 when the page updated at least --min-updates times, 1 otherwise, 2 on a usage or
browser failure (with the reason on stderr).
"""
import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, binary, width, height):
        self.profile = tempfile.mkdtemp(prefix="fieldloc-chromium-")
        self.log = open(os.path.join(self.profile, "browser.log"), "wb")
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        args = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", "--no-first-run",
                "--user-data-dir=" + self.profile, "--window-size=%d,%d" % (width, height), "about:blank"]

        def wire():
            # Through fresh numbers first: dup2 onto the same number would keep close-on-exec.
            a, b = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        # The pipe ends become descriptors 3 and 4 in the child only (close_fds=False keeps them open).
        self.process = subprocess.Popen(args, preexec_fn=wire, close_fds=False, stdout=subprocess.DEVNULL, stderr=self.log)
        os.close(to_child_r)
        os.close(from_child_w)
        self.write_fd = to_child_w
        self.read_fd = from_child_r
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None, timeout=30):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.write_fd, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while time.time() < deadline:
            reply = self.receive(deadline)
            if reply is None:
                break
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            self.events.append(reply)
        raise RuntimeError("%s: no answer from the browser within %d s" % (method, timeout))

    def receive(self, deadline):
        import select
        while b"\0" not in self.buffer:
            left = deadline - time.time()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.read_fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.read_fd, 1 << 20)
            if not chunk:
                raise RuntimeError("the browser closed its pipe (did it start?)")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except Exception:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("screenshot")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--min-updates", type=int, default=3)
    parser.add_argument("--width", type=int, default=1200)
    parser.add_argument("--height", type=int, default=1500)
    parser.add_argument("--browser", default=shutil.which("chromium") or shutil.which("chromium-browser") or "chromium")
    args = parser.parse_args()
    try:
        browser = Browser(args.browser, args.width, args.height)
    except OSError as error:
        print("cannot start %s: %s" % (args.browser, error), file=sys.stderr)
        return 2
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        browser.send("Page.enable", session=session)
        browser.send("Emulation.setDeviceMetricsOverride",
                     {"width": args.width, "height": args.height, "deviceScaleFactor": 1, "mobile": False}, session=session)
        browser.send("Page.navigate", {"url": args.url}, session=session)
        state = {}
        deadline = time.time() + args.seconds
        while time.time() < deadline:
            time.sleep(0.5)
            result = browser.send("Runtime.evaluate", {
                "expression": "JSON.stringify({updates: (window.fieldloc||{}).updates||0, satellites: (window.fieldloc||{}).satellites||0,"
                              " headings: ((window.fieldloc||{}).headings||[]).slice(-20),"
                              " sky_circles: document.querySelectorAll('#sky g.sat').length,"
                              " live: (document.getElementById('live')||{}).textContent})",
                "returnByValue": True}, session=session)
            state = json.loads(result["result"]["value"])
            if state["updates"] >= args.min_updates and len(set(state["headings"])) >= 2:
                break
        shot = browser.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session=session)
        with open(args.screenshot, "wb") as out:
            out.write(base64.b64decode(shot["data"]))
        state["screenshot"] = args.screenshot
        print(json.dumps(state))
        return 0 if state.get("updates", 0) >= args.min_updates else 1
    except RuntimeError as error:
        print(str(error), file=sys.stderr)
        return 2
    finally:
        browser.close()


if __name__ == "__main__":
    sys.exit(main())
