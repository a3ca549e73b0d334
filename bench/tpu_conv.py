#!/usr/bin/python3
"""tpu-compile's convolutions against the matmul they amount to: for each ResNet-style
layer, the modelled cycles of `linalg.conv_2d_nhwc_hwcf` on an NHWC image (padded, one
matmul over the concatenated strided slices of the taps, tpu-decompose) and of the plain
matmul of the same size on an im2col matrix `[N OH OW, KH KW C] x [KH KW C, F]` that is
already laid out, both compiled by tpu-compile and run by tpu-sim (timing only) on the same
chip. The ratio is what reading the image in place, unit by unit, costs over the ideal
layout. Prints a Markdown table for docs/performance.md.

    /usr/bin/python3 bench/tpu_conv.py [--arch v5e] [--dtype f32]
"""
import argparse
import json
import os
import pathlib
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
BIN = pathlib.Path(os.environ.get("CHIPLESS_BIN", ROOT / "build" / "bin"))

# (name, N, H, W, C, F, K, stride, padding)
LAYERS = [
    ("resnet conv1 (RGB, 7x7/2)", 1, 224, 224, 3, 64, 7, 2, 3),
    ("the same, channels padded to 8", 1, 224, 224, 8, 64, 7, 2, 3),
    ("resnet layer1 3x3", 1, 56, 56, 64, 64, 3, 1, 1),
    ("resnet layer2 3x3/2", 1, 56, 56, 64, 128, 3, 2, 1),
    ("resnet layer3 3x3", 1, 14, 14, 256, 256, 3, 1, 1),
    ("resnet layer4 3x3", 1, 7, 7, 512, 512, 3, 1, 1),
    ("resnet 1x1/2 downsample", 1, 56, 56, 64, 128, 1, 2, 0),
    ("batch 8, 3x3", 8, 32, 32, 32, 32, 3, 1, 1),
]


def tensor(shape, dt):
    return "tensor<" + "x".join(str(s) for s in shape) + "x" + dt + ">"


def conv_graph(n, h, w, c, f, k, s, p, dt):
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    x, wt, y = tensor([n, h, w, c], dt), tensor([k, k, c, f], dt), tensor([n, oh, ow, f], dt)
    padded = tensor([n, h + 2 * p, w + 2 * p, c], dt)
    lines = [f'func.func @conv(%x: {x} {{graph.name = "x"}}, %w: {wt} {{graph.name = "w"}}) '
             f'-> ({y} {{graph.name = "y"}}) {{',
             f"  %zero = arith.constant 0.0 : {dt}"]
    image = "%x"
    if p:
        lines += [f"  %p = tensor.pad %x low[0, {p}, {p}, 0] high[0, {p}, {p}, 0] {{",
                  "  ^bb0(%a: index, %b: index, %c: index, %d: index):",
                  f"    tensor.yield %zero : {dt}", f"  }} : {x} to {padded}"]
        image = "%p"
    else:
        padded = x
    lines += [f"  %e = tensor.empty() : {y}",
              f"  %f = linalg.fill ins(%zero : {dt}) outs(%e : {y}) -> {y}",
              f"  %y = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : tensor<2xi64>, "
              f"strides = dense<{s}> : tensor<2xi64>}} ins({image}, %w : {padded}, {wt}) "
              f"outs(%f : {y}) -> {y}",
              f"  return %y : {y}", "}"]
    return "\n".join(lines) + "\n", n * oh * ow, k * k * c


def matmul_graph(m, kk, f, dt):
    a, b, y = tensor([m, kk], dt), tensor([kk, f], dt), tensor([m, f], dt)
    return (f'func.func @mm(%a: {a} {{graph.name = "a"}}, %b: {b} {{graph.name = "b"}}) '
            f'-> ({y} {{graph.name = "y"}}) {{\n'
            f"  %zero = arith.constant 0.0 : {dt}\n  %e = tensor.empty() : {y}\n"
            f"  %f = linalg.fill ins(%zero : {dt}) outs(%e : {y}) -> {y}\n"
            f"  %y = linalg.matmul ins(%a, %b : {a}, {b}) outs(%f : {y}) -> {y}\n"
            f"  return %y : {y}\n}}\n")


def cycles(work, name, text, arch):
    src = work / f"{name}.mlir"
    src.write_text(text)
    out = work / name
    subprocess.run([str(BIN / "tpu-compile"), str(src), "-o", str(out), "--arch", arch],
                   check=True, capture_output=True, text=True)
    stats = work / f"{name}.json"
    subprocess.run([str(BIN / "tpu-sim"), "run", str(out / "job.plan"), "--timing-only",
                    "--stats", str(stats)], check=True, capture_output=True, text=True)
    return json.loads(stats.read_text())["cycles"]["value"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", default="v5e")
    parser.add_argument("--dtype", default="f32", choices=["f32", "bf16"])
    args = parser.parse_args()
    print(f"| layer | image NHWC | filters | conv cycles | im2col matmul | matmul cycles "
          f"| conv / matmul |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="tpu-conv-") as tmp:
        work = pathlib.Path(tmp)
        for i, (name, n, h, w, c, f, k, s, p) in enumerate(LAYERS):
            text, m, kk = conv_graph(n, h, w, c, f, k, s, p, args.dtype)
            conv = cycles(work, f"conv{i}", text, args.arch)
            mm = cycles(work, f"mm{i}", matmul_graph(m, kk, f, args.dtype), args.arch)
            print(f"| {name} | {n}x{h}x{w}x{c} | {k}x{k}x{c}x{f}, stride {s} | {conv:,.0f} "
                  f"| {m}x{kk} x {kk}x{f} | {mm:,.0f} | {conv / mm:.2f} |")


if __name__ == "__main__":
    main()
