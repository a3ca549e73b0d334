"""JUnit XML of a conformance run, as CI systems and standard JUnit parsers read it: one
<testsuite> per suite, one <testcase> per case and chip (name CASE[CHIP]) with its cycles,
worst errors and bounds as <properties>, a <failure> with the reasons when it failed, a
<skipped> when it did not run."""
import xml.etree.ElementTree as ET


def _number(value):
    return "" if value is None else repr(float(value)) if isinstance(value, float) \
        else str(value)


def junit_xml(results, skipped):
    """The XML text for `results` (check dicts) and `skipped` ([(suite, case, chip, why)])."""
    root = ET.Element("testsuites", name="chipless conformance")
    suites = {}
    order = list(dict.fromkeys([r["suite"] for r in results] + [s[0] for s in skipped]))
    for name in order:
        suites[name] = ET.SubElement(root, "testsuite", name=name)
    totals = {}
    for r in results:
        suite = suites[r["suite"]]
        case = ET.SubElement(suite, "testcase", classname=f"{r['suite']}.{r['case']}",
                             name=f"{r['case']}[{r['chip']}]", time=f"{r['seconds']:.3f}")
        props = ET.SubElement(case, "properties")
        for key in ("cycles", "worst_abs_error", "worst_rel_error"):
            ET.SubElement(props, "property", name=key, value=_number(r[key]))
        for b in r["bounds"]:
            ET.SubElement(props, "property", name=f"bound.{b['bound']}",
                          value=_number(b["cycles_at_least"]))
        if not r["ok"]:
            failure = ET.SubElement(case, "failure", message=r["failure"].split("; ")[0][:500],
                                    type="conformance")
            failure.text = r["failure"]
        t = totals.setdefault(r["suite"], [0, 0, 0, 0.0])
        t[0] += 1
        t[1] += 0 if r["ok"] else 1
        t[3] += r["seconds"]
    for suite_name, case_name, chip, why in skipped:
        case = ET.SubElement(suites[suite_name], "testcase", classname=f"{suite_name}.{case_name}",
                             name=f"{case_name}[{chip}]", time="0")
        ET.SubElement(case, "skipped", message=why)
        t = totals.setdefault(suite_name, [0, 0, 0, 0.0])
        t[0] += 1
        t[2] += 1
    for name, suite in suites.items():
        tests, failures, skips, seconds = totals.get(name, [0, 0, 0, 0.0])
        suite.set("tests", str(tests))
        suite.set("failures", str(failures))
        suite.set("errors", "0")
        suite.set("skipped", str(skips))
        suite.set("time", f"{seconds:.3f}")
    root.set("tests", str(sum(t[0] for t in totals.values())))
    root.set("failures", str(sum(t[1] for t in totals.values())))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, "unicode") + "\n"
