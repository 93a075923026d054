"""fit-erfcx.py: the coefficients of src/cpu/vmath.h's wk_vgelu_erff: erfcx(a) = erfc(a) e^{a^2} ~ t P(t) with
t = 2 / (2 + a) over a in [0, 10.25] (where erfc leaves f32's range), P of degree 10, fitted to scipy's erfcx by least
squares on the relative error, reweighted toward its largest errors (Lawson's iteration) to approach the minimax fit.
Prints the largest relative error in float64 and with the coefficients rounded to f32, then P's coefficients as
vmath.h's Horner steps use them (highest first). Needs numpy and scipy: python3 scripts/fit-erfcx.py"""
import numpy as np
from scipy.special import erfcx

A_MAX, DEGREE, ROUNDS = 10.25, 10, 200

a = np.concatenate([np.linspace(0, A_MAX, 40000), np.geomspace(1e-6, A_MAX, 20000)])
t = 2 / (2 + a)
y = erfcx(a) / t  # P's target
V = np.vander(t, DEGREE + 1, increasing=True)
w = np.ones_like(t)
for _ in range(ROUNDS):
    W = w / y
    c, *_ = np.linalg.lstsq(V * W[:, None], y * W, rcond=None)
    r = np.abs(V @ c / y - 1)
    w = w * (r / r.max()) ** 0.5 + 1e-12
    w /= w.sum()
c32 = c.astype(np.float32)
err64, err32 = np.abs(V @ c / y - 1).max(), np.abs(V @ c32.astype(np.float64) / y - 1).max()
print(f"relative error: {err64:.2e} (f64), {err32:.2e} (f32 coefficients)")
print("\n".join(f"{float(x):.9e}f" for x in c32[::-1]))
