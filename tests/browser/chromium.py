"""Headless Chromium for the browser tests and the screenshots: Debian's `chromium` and
`chromium-driver` packages, driven by Selenium pointed at the installed chromedriver (a
browser or driver download, such as Selenium Manager's, fails here and is never tried)."""
from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

CHROMIUM = os.environ.get("CARDROOM_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CARDROOM_CHROMEDRIVER", "/usr/bin/chromedriver")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars")
"""--disable-dev-shm-usage: containers give /dev/shm 64 MB, which Chromium outgrows.
--hide-scrollbars: a screenshot shows the page, not the platform's scroll bars."""

SIZES = {"tv": (1920, 1080), "laptop": (1366, 768), "phone": (390, 844)}


def missing() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not os.access(path, os.X_OK):
            return f"{path} not found: apt-get install chromium chromium-driver (Debian packages: {package})"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "the selenium package is not installed (pip install -e '.[test]')"
    return None


@contextmanager
def chromium() -> Iterator[Any]:
    """A Selenium driver of a fresh headless Chromium (its own profile directory), quit after."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="cardroom-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    driver.set_page_load_timeout(20)
    driver.set_script_timeout(10)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def set_viewport(driver: Any, size: str) -> None:
    """The page's viewport exactly (a window's size would include the browser's frame)."""
    width, height = SIZES[size]
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": size == "phone"})


def horizontal_overflow(driver: Any) -> int:
    """How many CSS pixels the page is wider than its viewport (0: no horizontal scroll)."""
    return int(driver.execute_script(
        "return Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
        " - document.documentElement.clientWidth"))


def overflowing(driver: Any) -> list[str]:
    """The elements that reach past the viewport's right edge (tag.class), for a message."""
    return driver.execute_script("""
        const width = document.documentElement.clientWidth;
        return Array.from(document.querySelectorAll('body *'))
          .filter(e => e.getBoundingClientRect().right > width + 1)
          .slice(0, 8).map(e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : ''));""")
