"""JUnit XML output (``--format junit``): one test suite per file, one failing test case per
finding, as ruff writes it; CI systems show it as a test report."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from gradguard.check.model import Diagnostic
from gradguard.check.report.text import location_text


def render(diagnostics: list[Diagnostic]) -> str:
    suites = ET.Element("testsuites", name="gradguard", tests=str(len(diagnostics)), failures=str(len(diagnostics)))
    suites.set("errors", "0")
    if not diagnostics:
        suite = ET.SubElement(suites, "testsuite", name="gradguard", tests="1", failures="0", errors="0")
        ET.SubElement(suite, "testcase", name="No errors found", classname="gradguard")
    by_file: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        by_file.setdefault(d.filename, []).append(d)
    for filename, found in by_file.items():
        suite = ET.SubElement(
            suites, "testsuite", name=filename, tests=str(len(found)), failures=str(len(found)), errors="0"
        )
        for d in found:
            case = ET.SubElement(
                suite,
                "testcase",
                name=f"org.gradguard.{d.code}",
                classname=filename,
                line=str(d.start.row),
                column=str(d.start.column),
            )
            failure = ET.SubElement(case, "failure", message=d.message)
            failure.text = f"{location_text(d)}: {d.code} {d.message}"
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
