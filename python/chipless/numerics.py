"""What a narrow floating-point tensor holds, as float32: the values an f16 or bf16 input or
intermediate really has on the device, for references that must see the same numbers."""
import numpy as np


def round_f16(x):
    """Rounded to IEEE fp16 (nearest even), as float32."""
    return np.asarray(x, np.float32).astype(np.float16).astype(np.float32)


def round_bf16(x):
    """Rounded to bf16 (nearest even), as float32."""
    b = np.ascontiguousarray(x, np.float32).view(np.uint32)
    return (((b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)).view(np.float32)
