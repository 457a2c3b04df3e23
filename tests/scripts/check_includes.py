#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""includes.layers: the include graph of kernels/ and lib/ is layered.

Every source file of kernels/ and lib/ belongs to one layer of LAYERS (lowest first) and may include
(with #include "...") only files of its own layer or of lower ones. Besides:
  - a kind folder (kernels/<kind>/, any folder but the shared-math ones) includes no other kind
    folder's files: math two kinds share moves down into kernels/scalar/ or kernels/simd/;
  - the registry includes the kinds' spec.h only;
  - only the oracle (files named reference.h / reference.cc) and the tests include a reference.h:
    the oracle is test code that the library links only as the selectable "reference" target;
  - the installed headers (lib/include/) include nothing but each other.
A file of kernels/ outside every layer is an error too: a new top-level file must be given a layer.

Usage: check_includes.py [TREE]      check the tree (default: this script's ../..)
       check_includes.py --self-test [TREE]  also check that each rule fails on an injected violation
"""
import os
import re
import sys

# The layers, lowest first: (name, what it holds, predicate over the path relative to the tree).
SHARED_MATH = ("kernels/scalar/", "kernels/simd/")


def _kind(path):
    """The kind folder of a kernels/<kind>/ path, or None."""
    parts = path.split("/")
    if len(parts) >= 3 and parts[0] == "kernels" and not path.startswith(SHARED_MATH):
        return parts[1]
    return None


LAYERS = [
    ("base", "kernel interface types, CPU detection, model helpers",
     lambda p: p in ("kernels/interface.h", "kernels/concurrency.h", "kernels/bits.h",
                     "kernels/layout_spec.h", "kernels/cpu.h", "kernels/cpu.cc",
                     "kernels/fpr_terms.h", "kernels/fpr_terms.cc")),
    ("shared-math", "target-free scalar math (scalar/) and per-target SIMD math (simd/)",
     lambda p: p.startswith(SHARED_MATH)),
    ("kind", "one folder per kind: spec.h, scalar code, model, kernel-inl.h, per-target units",
     lambda p: _kind(p) is not None),
    ("registry", "the X-list of layouts over their specs", lambda p: p == "kernels/registry.h"),
    ("tables", "the per-target kernel table type and the base per-target unit",
     lambda p: p in ("kernels/table.h", "kernels/base_kernels.cc", "kernels/base_kernels-inl.h")),
    ("oracle", "the reference target's table (the scalar oracle)",
     lambda p: p in ("kernels/reference.h", "kernels/reference.cc")),
    ("dispatch", "target selection", lambda p: p in ("kernels/dispatch.h", "kernels/dispatch.cc")),
    ("library", "the library core (lib/, not its installed headers)",
     lambda p: p.startswith("lib/") and not p.startswith("lib/include/")),
]
SOURCE = re.compile(r"\.(h|hpp|cc|c)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(path):
    for i, (name, _, pred) in enumerate(LAYERS):
        if pred(path):
            return i
    return None


def scan(top):
    """{path: [included paths that exist in the tree]} for kernels/ and lib/."""
    graph = {}
    for base in ("kernels", "lib"):
        for root, _, files in os.walk(os.path.join(top, base)):
            for f in files:
                if not SOURCE.search(f):
                    continue
                path = os.path.relpath(os.path.join(root, f), top).replace(os.sep, "/")
                with open(os.path.join(top, path), encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                incs = []
                for inc in INCLUDE.findall(text):
                    for cand in (inc, "lib/include/" + inc,
                                 os.path.normpath(os.path.join(os.path.dirname(path), inc))):
                        if os.path.isfile(os.path.join(top, cand)):
                            incs.append(cand.replace(os.sep, "/"))
                            break  # not in the tree: a system or Highway header
                graph[path] = incs
    return graph


def check(graph):
    """The violations of the layering, as messages."""
    errors = []
    for path in sorted(graph):
        public = path.startswith("lib/include/")
        here = layer_of(path)
        if here is None and not public:
            errors.append(f"{path}: in no layer (give it one in tests/scripts/check_includes.py)")
            continue
        for inc in graph[path]:
            there = layer_of(inc)
            if public:
                if not inc.startswith("lib/include/"):
                    errors.append(f"{path} -> {inc}: an installed header includes a private file")
                continue
            if os.path.basename(inc) == "reference.h" and \
                    os.path.basename(path) not in ("reference.h", "reference.cc"):
                errors.append(f"{path} -> {inc}: only the oracle and the tests include a reference.h")
            if there is None:
                continue  # lib/include: every layer may use the public API
            if there > here:
                errors.append(f"{path} -> {inc}: includes back up, from layer "
                              f"'{LAYERS[here][0]}' to '{LAYERS[there][0]}'")
            if _kind(path) and _kind(inc) and _kind(path) != _kind(inc):
                errors.append(f"{path} -> {inc}: a kind folder includes another kind's file")
            if path == "kernels/registry.h" and _kind(inc) and os.path.basename(inc) != "spec.h":
                errors.append(f"{path} -> {inc}: the registry includes the kinds' spec.h only")
    return errors


def self_test(graph):
    """Each rule must reject one injected include (the tree itself being clean)."""
    cases = [
        ("kernels/classic/kernels.cc", "kernels/dispatch.h", "includes back up"),
        ("kernels/reference.h", "kernels/dispatch.h", "includes back up"),
        ("kernels/counting/kernel-inl.h", "kernels/classic/kernel-inl.h", "another kind's file"),
        ("kernels/registry.h", "kernels/classic/kernel-inl.h", "spec.h only"),
        ("lib/core/filter.cc", "kernels/reference.h", "only the oracle"),
        ("kernels/dispatch.cc", "kernels/counting/reference.h", "only the oracle"),
        ("lib/include/simdbloom/simdbloom.hpp", "kernels/interface.h", "installed header"),
    ]
    failures = []
    for src, inc, want in cases:
        if src not in graph or inc not in graph:
            failures.append(f"self-test: {src} or {inc} is not in the tree")
            continue
        g = dict(graph)
        g[src] = graph[src] + [inc]
        if not any(want in e for e in check(g)):
            failures.append(f"self-test: {src} -> {inc} was not rejected ('{want}')")
    g = dict(graph)
    g["kernels/new_top_level.h"] = []
    if not any("in no layer" in e for e in check(g)):
        failures.append("self-test: a file outside every layer was not rejected")
    return failures


def main(argv):
    args = [a for a in argv if a != "--self-test"]
    top = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    graph = scan(top)
    if "kernels/registry.h" not in graph:
        print(f"check_includes: {top} has no kernels/registry.h")
        return 1
    errors = check(graph)
    if "--self-test" in argv:
        errors += self_test(graph)
    if errors:
        print("include layering violated (layers, lowest first: " +
              ", ".join(n for n, _, _ in LAYERS) + "):")
        for e in errors:
            print("  " + e)
        return 1
    edges = sum(len(v) for v in graph.values())
    print(f"includes.layers: {len(graph)} files, {edges} includes, layered: " +
          " < ".join(n for n, _, _ in LAYERS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
