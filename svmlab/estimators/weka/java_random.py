"""``java.util.Random`` in Python, bit for bit: the generator Weka's randomised learners draw from.

Re-implementing a Weka learner that shuffles, samples or picks start points equals Weka only if
it draws the same numbers; this module gives those numbers.
"""

from __future__ import annotations


class JavaRandom:
    """``java.util.Random``: the 48-bit linear congruential generator, bit for bit.

    Only what Weka's MIEMDD uses: the seed scrambling and ``nextInt(bound)``.
    """

    _MULT, _ADD, _MASK = 0x5DEECE66D, 0xB, (1 << 48) - 1

    def __init__(self, seed: int):
        self._seed = (int(seed) ^ self._MULT) & self._MASK

    def _next(self, bits: int) -> int:
        self._seed = (self._seed * self._MULT + self._ADD) & self._MASK
        value = (self._seed >> (48 - bits)) & 0xFFFFFFFF  # Java's cast to int
        return value - (1 << 32) if value >= 1 << 31 else value

    def next_int(self, bound: int) -> int:
        """A uniform int in ``[0, bound)``, as Java's ``nextInt(int)``."""
        if bound <= 0:
            raise ValueError("bound must be positive")
        if bound & -bound == bound:  # a power of two
            return (bound * self._next(31)) >> 31
        while True:
            bits = self._next(31)
            value = bits % bound
            if bits - value + (bound - 1) < 2**31:  # Java's int overflow test
                return value

    def next_int_unbounded(self) -> int:
        """A uniform signed 32-bit int, as Java's ``nextInt()`` (no bound)."""
        return self._next(32)

    def next_double(self) -> float:
        """A uniform double in ``[0, 1)`` with 53 random bits, as Java's ``nextDouble()``."""
        return ((self._next(26) << 27) + self._next(27)) * 2.0**-53

    def shuffled(self, n: int):
        """The row order after Weka's ``Instances.randomize`` of ``n`` rows: from the last row
        down to the second, row ``j`` is swapped with row ``nextInt(j + 1)``.

        Returns
        -------
        list of int
            ``order[k]`` is the original index of the row at position ``k``.
        """
        order = list(range(n))
        for j in range(n - 1, 0, -1):
            k = self.next_int(j + 1)
            order[j], order[k] = order[k], order[j]
        return order
