#!/usr/bin/env python3
"""The backtest report as a person sees it: rendered by headless Chromium
(Debian's `chromium`), the screenshot is not blank and shows exactly one
chart per selected (workload, hardware key), in a wide and a narrow window.

  report_browser_test.py sample --program hwrec_report_sample
      pages written from hand-built results (1 and 3 keys)
  report_browser_test.py end-to-end --hwrec hwrec --observations FILE
      hwrec init + ingest FILE + hwrec report --html, with and without a
      --gpu-model filter

Charts are counted by pixels: each chart's SVG is filled with its own light
background (#eef2f8) and keeps a strip at its left edge free of drawing, so a
column through that strip crosses one band of that colour per chart.

Exits 77 (CTest's skip) when chromium or PIL is missing, unless CI is set:
then a missing tool fails. The end-to-end variant also exits 77 while the
backtest replay is not built yet (hwrec report says "the replay is being
written").
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
CHART_BACKGROUND = (0xEE, 0xF2, 0xF8)
PAGE_BACKGROUND = (0xFF, 0xFF, 0xFF)
OVERRUN_RED = (0xD6, 0x27, 0x28)
FIGURE_BLUE = (0x1F, 0x6F, 0xD1)


def under_ci():
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def missing(what):
    if under_ci():
        print(f"report_browser_test: {what} is missing and CI is set: install it "
              "(bash scripts/deps.sh)", file=sys.stderr)
        sys.exit(1)
    print(f"report_browser_test: SKIP: {what} is missing (bash scripts/deps.sh installs it)")
    sys.exit(SKIP)


def chromium():
    path = os.environ.get("HWREC_CHROMIUM") or shutil.which("chromium")
    if not path:
        missing("chromium (Debian's package `chromium`)")
    return path


def load_pil():
    try:
        from PIL import Image  # noqa: PLC0415 - optional until the test runs
    except ImportError:
        missing("PIL (Debian's package `python3-pil`)")
    return Image


def screenshot(browser, html, png, size, scratch):
    """Renders `html` at `size` (width, height) into `png`."""
    profile = tempfile.mkdtemp(prefix="chromium-profile-", dir=scratch)
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--no-first-run", "--disable-extensions", "--disable-sync",
               f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}",
               f"--screenshot={png}", "file://" + os.path.abspath(html)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    except subprocess.TimeoutExpired:
        sys.exit(f"report_browser_test: chromium did not finish within 120 s: {' '.join(command)}")
    if done.returncode != 0 or not os.path.exists(png):
        sys.exit(f"report_browser_test: chromium failed ({done.returncode}):\n{done.stderr}")


def near(pixel, colour, tolerance=3):
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour))


def mask_of(image, colour, tolerance=3):
    """A one-channel image: 255 where `image` is within `tolerance` of `colour`."""
    from PIL import ImageChops  # noqa: PLC0415
    bands = [band.point(lambda v, c=c: 255 if abs(v - c) <= tolerance else 0)
             for band, c in zip(image.split(), colour)]
    return ImageChops.multiply(ImageChops.multiply(bands[0], bands[1]), bands[2])


def count_charts(image):
    """The bands of chart background crossed by a column through the charts' left strip."""
    box = mask_of(image, CHART_BACKGROUND).getbbox()
    if box is None:
        return 0
    column = list(image.crop((box[0] + 3, 0, box[0] + 4, image.size[1])).getdata())
    bands, run = 0, 0
    for pixel in column + [PAGE_BACKGROUND]:
        if near(pixel, CHART_BACKGROUND):
            run += 1
            continue
        bands += run >= 40
        run = 0
    return bands


def window_sizes(charts):
    """A wide and a narrow window (the charts keep a minimum width), tall enough for the page:
    its header, the overview's explanation and the settings, then per key a row of the overview
    and a chart."""
    height = 2000 + 2500 * max(charts, 1)
    return [(1280, height), (480, height)]


def check_page(Image, browser, html, expected, scratch, label, overruns=True):
    failures = []
    for size in window_sizes(expected):
        png = os.path.join(scratch, f"{label}-{size[0]}x{size[1]}.png")
        screenshot(browser, html, png, size, scratch)
        image = Image.open(png).convert("RGB")
        width, height = image.size
        counts = image.getcolors(maxcolors=width * height)  # [(pixels, colour)]
        where = f"{label} at {size[0]}x{size[1]}"
        total = width * height
        drawn = sum(n for n, colour in counts if not near(colour, PAGE_BACKGROUND))
        if drawn < total * 0.05:
            failures.append(f"{where}: nearly blank: {drawn} of {total} pixels drawn")
        colours = {(r >> 4, g >> 4, b >> 4) for _, (r, g, b) in counts}
        if len(colours) < 8:
            failures.append(f"{where}: only {len(colours)} colours: the charts did not render")
        marks = [("figure line (blue)", FIGURE_BLUE)] + ([("overrun (red)", OVERRUN_RED)]
                                                          if overruns else [])
        for name, colour in marks:
            if not any(near(c, colour, 8) for _, c in counts):
                failures.append(f"{where}: no {name} pixel")
        tail = image.crop((0, height - 40, width, height)).getcolors(maxcolors=width * 40)
        if any(not near(colour, PAGE_BACKGROUND) for _, colour in tail):
            failures.append(f"{where}: the page is taller than the window: raise its height")
        charts = count_charts(image)
        if charts != expected:
            failures.append(f"{where}: {charts} charts on the screenshot, expected {expected}")
        else:
            print(f"report_browser_test: {where}: {charts} charts, {len(colours)} colours")
    return failures


def run_sample(args, Image, browser, scratch):
    failures = []
    for keys in (1, 3):
        html = os.path.join(scratch, f"sample-{keys}.html")
        subprocess.run([args.program, html, str(keys)], check=True)
        failures += check_page(Image, browser, html, keys, scratch, f"sample-{keys}")
    return failures


def hwrec(args, *argv):
    return subprocess.run([args.hwrec, *argv], capture_output=True, text=True, timeout=300,
                          check=False)


def run_end_to_end(args, Image, browser, scratch):
    store = os.path.join(scratch, "store.db")
    for argv, ok in ((["init", store], (0,)), (["ingest", store, args.observations], (0, 3))):
        done = hwrec(args, *argv)
        if done.returncode not in ok:
            sys.exit(f"report_browser_test: hwrec {' '.join(argv)} exited {done.returncode}:\n"
                     f"{done.stdout}{done.stderr}")
    failures = []
    # Two workloads, each on an A100 80GB and on an L4 key: four keys, two of them A100s.
    for label, filters, expected in (("every-key", [], 4),
                                     ("a100", ["--gpu-model", "A100 80GB"], 2)):
        html = os.path.join(scratch, f"{label}.html")
        done = hwrec(args, "report", store, "--html", html, *filters)
        if done.returncode != 0:
            sys.exit(f"report_browser_test: hwrec report {' '.join(filters)} exited "
                     f"{done.returncode}:\n{done.stdout}{done.stderr}")
        if f"{expected} charts" not in done.stdout:
            failures.append(f"{label}: hwrec report said {done.stdout.strip()!r}, expected "
                            f"{expected} charts")
        failures += check_page(Image, browser, html, expected, scratch, label, overruns=False)
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    sample = sub.add_parser("sample")
    sample.add_argument("--program", required=True)
    e2e = sub.add_parser("end-to-end")
    e2e.add_argument("--hwrec", required=True)
    e2e.add_argument("--observations", required=True)
    args = parser.parse_args()

    browser = chromium()
    Image = load_pil()
    with tempfile.TemporaryDirectory(prefix="hwrec-report-browser-") as scratch:
        run = run_sample if args.mode == "sample" else run_end_to_end
        failures = run(args, Image, browser, scratch)
        if failures:
            keep = os.environ.get("HWREC_KEEP_SCREENSHOTS")
            if keep:
                shutil.copytree(scratch, keep, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("chromium-profile-*"))
            print("report_browser_test: FAILED\n  " + "\n  ".join(failures), file=sys.stderr)
            return 1
    print("report_browser_test: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
