"""How far cuDNN's TF32 kernels carry the 3xTF32 split, on the large f32 layers of the tf32x3
device check (packages/kernels/scripts/tf32x3-device-check.mjs), NCDHW, through PyTorch.

For each pass: relative L2 against the f64 result (on the GPU) of strict f32, plain TF32, the
split as three TF32 calls summed in f32 (hi*hi + hi*lo + lo*hi, what Tf32x3Split runs), and the
split as ONE TF32 call on concatenated operands: the forward over [x_hi, x_lo, x_hi] channels
with [w_hi, w_hi, w_lo] in-channels; backward-data over [dy_hi, dy_lo, dy_hi] channels with
[w_hi, w_hi, w_lo] out-channels; backward-filter over a batch of [x_hi, x_lo, x_hi] and
[dy_hi, dy_hi, dy_lo]. Then each one's time (CUDA events, median of 20 after 5 warm-up calls,
cudnn.benchmark off: the heuristic's first choice). Fresh uniform(-1, 1) operands per layer.

    python torch_3xtf32_probe.py            (prints one line per layer and pass)
"""

import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.grad import conv3d_input, conv3d_weight

LAYERS = [
    ("c3d-conv2 (n 4)", 4, 64, 128, (16, 56, 56), 1, 1, 1),
    ("unet3d-enc1 (n 1, 64^3)", 1, 32, 32, (64, 64, 64), 1, 1, 1),
    ("r3d-downsample (n 4)", 4, 64, 128, (16, 56, 56), 1, 2, 1),
    ("dilated (n 1)", 1, 64, 64, (32, 64, 64), 2, 1, 2),
]


def tf32(t):
    """Round f32 to TF32 (nearest, ties away from zero), as cuda/split-tf32.cu does (finite)."""
    b = t.view(torch.int32)
    return ((b + 0x1000) & ~0x1FFF).view(torch.float32)


def split(t):
    hi = tf32(t)
    return hi, tf32(t - hi)


def rel(a, ref):
    return ((a.double() - ref).norm() / ref.norm()).item()


def timed(fn):
    for _ in range(5):
        fn()
    times = []
    for _ in range(20):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times)


def set_tf32(on):
    torch.backends.cudnn.allow_tf32 = on


def main():
    torch.backends.cudnn.benchmark = False
    torch.manual_seed(1234)
    dev = "cuda"
    print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, "
          f"{torch.cuda.get_device_name()}", flush=True)
    totals = {}
    for name, n, c, k, ext, pad, stride, dil in LAYERS:
        x = torch.rand((n, c) + ext, device=dev) * 2 - 1
        w = torch.rand((k, c, 3, 3, 3), device=dev) * 2 - 1
        conv = dict(stride=stride, padding=pad, dilation=dil)
        out = [
            (e + 2 * pad - dil * 2 - 1) // stride + 1 for e in ext
        ]
        dy = torch.rand((n, k, *out), device=dev) * 2 - 1
        xh, xl = split(x)
        wh, wl = split(w)
        dyh, dyl = split(dy)
        passes = {
            "fw": dict(
                ref=lambda: F.conv3d(x.double(), w.double(), **conv),
                one=lambda a, b: F.conv3d(a, b, **conv),
                ab=(x, w), parts=((xh, wh), (xh, wl), (xl, wh)),
                cat=lambda: (torch.cat([xh, xl, xh], 1), torch.cat([wh, wh, wl], 1)),
            ),
            "bwData": dict(
                ref=lambda: conv3d_input(x.shape, w.double(), dy.double(), **conv),
                one=lambda a, b: conv3d_input(x.shape, b, a, **conv),
                ab=(dy, w), parts=((dyh, wh), (dyh, wl), (dyl, wh)),
                cat=lambda: (torch.cat([dyh, dyl, dyh], 1), torch.cat([wh, wh, wl], 0)),
            ),
            "bwFilter": dict(
                ref=lambda: conv3d_weight(x.double(), w.shape, dy.double(), **conv),
                one=lambda a, b: conv3d_weight(a, w.shape, b, **conv),
                ab=(x, dy), parts=((xh, dyh), (xh, dyl), (xl, dyh)),
                cat=lambda: (torch.cat([xh, xl, xh], 0), torch.cat([dyh, dyh, dyl], 0)),
            ),
        }
        for pname, p in passes.items():
            ref = p["ref"]()
            one = p["one"]
            a, b = p["ab"]
            set_tf32(False)
            strict = rel(one(a, b), ref)
            t_strict = timed(lambda: one(a, b))
            set_tf32(True)
            plain = rel(one(a, b), ref)
            t_tf32 = timed(lambda: one(a, b))
            parts = p["parts"]
            three = lambda: one(*parts[2]) + one(*parts[1]) + one(*parts[0])
            r_three = rel(three(), ref)
            t_three = timed(three)
            ca, cb = p["cat"]()
            r_cat = rel(one(ca, cb), ref)
            t_cat = timed(lambda: one(ca, cb))
            del ca, cb
            for key, v in (("strict", t_strict), ("tf32", t_tf32), ("three", t_three), ("cat", t_cat)):
                totals[key] = totals.get(key, 0.0) + v
            print(
                f"probe {name} {pname:8} relL2 strict {strict:.2e} tf32 {plain:.2e} "
                f"3-calls {r_three:.2e} concat {r_cat:.2e} | ms strict {t_strict:.3f} "
                f"tf32 {t_tf32:.3f} 3-calls {t_three:.3f} concat {t_cat:.3f} "
                f"(strict/concat {t_strict / t_cat:.2f}x)",
                flush=True,
            )
        del x, w, dy, xh, xl, wh, wl, dyh, dyl
        torch.cuda.empty_cache()
    print(
        "probe total ms: "
        + ", ".join(f"{k} {v:.2f}" for k, v in totals.items())
        + f"; strict/concat {totals['strict'] / totals['cat']:.2f}x",
        flush=True,
    )


if __name__ == "__main__":
    sys.exit(main())
