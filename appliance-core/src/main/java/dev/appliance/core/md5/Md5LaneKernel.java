package dev.appliance.core.md5;

import static jdk.incubator.vector.VectorOperators.ROL;
import static jdk.incubator.vector.VectorOperators.XOR;

import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * MD5's compression function (RFC 1321) over {@link #LANES} independent messages at once, one per vector lane: each
 * lane's state advances by one 64-byte block per call ({@link Md5Lanes} feeds it). The steps are written out because
 * the Vector API needs constant rotations and round constants to compile to single instructions, and split by round
 * because C2 gives up on one method holding all 64. Shorter forms were measured and dropped (2026-11-28,
 * docs/benchmarks.md): each step as a call to a step helper with the round's function as another, 6 times slower per
 * lane; a loop per round over tables of words and constants, 5 to 16 times slower.
 */
final class Md5LaneKernel {
    static final VectorSpecies<Integer> SPECIES = IntVector.SPECIES_PREFERRED;
    static final int LANES = SPECIES.length();

    private Md5LaneKernel() {}

    /**
     * Advances every lane by one block. {@code state} holds a, b, c, d for all lanes (a at [0, LANES), then b, c, d);
     * {@code words} holds the block's sixteen little-endian words, word w of lane l at {@code w * LANES + l};
     * {@code work} is scratch of the state's size.
     */
    static void compress(int[] state, int[] words, int[] work) {
        System.arraycopy(state, 0, work, 0, 4 * LANES);
        roundF(work, words);
        roundG(work, words);
        roundH(work, words);
        roundI(work, words);
        for (int i = 0; i < 4 * LANES; i += LANES) {
            IntVector.fromArray(SPECIES, state, i)
                    .add(IntVector.fromArray(SPECIES, work, i))
                    .intoArray(state, i);
        }
    }

    private static void roundF(int[] work, int[] words) {
        IntVector a = IntVector.fromArray(SPECIES, work, 0);
        IntVector b = IntVector.fromArray(SPECIES, work, LANES);
        IntVector c = IntVector.fromArray(SPECIES, work, 2 * LANES);
        IntVector d = IntVector.fromArray(SPECIES, work, 3 * LANES);
        a = b.add(a.add(d.lanewise(XOR, b.and(c.lanewise(XOR, d))))
                .add(IntVector.fromArray(SPECIES, words, 0 * LANES))
                .add(-680876936)
                .lanewise(ROL, 7));
        d = a.add(d.add(c.lanewise(XOR, a.and(b.lanewise(XOR, c))))
                .add(IntVector.fromArray(SPECIES, words, 1 * LANES))
                .add(-389564586)
                .lanewise(ROL, 12));
        c = d.add(c.add(b.lanewise(XOR, d.and(a.lanewise(XOR, b))))
                .add(IntVector.fromArray(SPECIES, words, 2 * LANES))
                .add(606105819)
                .lanewise(ROL, 17));
        b = c.add(b.add(a.lanewise(XOR, c.and(d.lanewise(XOR, a))))
                .add(IntVector.fromArray(SPECIES, words, 3 * LANES))
                .add(-1044525330)
                .lanewise(ROL, 22));
        a = b.add(a.add(d.lanewise(XOR, b.and(c.lanewise(XOR, d))))
                .add(IntVector.fromArray(SPECIES, words, 4 * LANES))
                .add(-176418897)
                .lanewise(ROL, 7));
        d = a.add(d.add(c.lanewise(XOR, a.and(b.lanewise(XOR, c))))
                .add(IntVector.fromArray(SPECIES, words, 5 * LANES))
                .add(1200080426)
                .lanewise(ROL, 12));
        c = d.add(c.add(b.lanewise(XOR, d.and(a.lanewise(XOR, b))))
                .add(IntVector.fromArray(SPECIES, words, 6 * LANES))
                .add(-1473231341)
                .lanewise(ROL, 17));
        b = c.add(b.add(a.lanewise(XOR, c.and(d.lanewise(XOR, a))))
                .add(IntVector.fromArray(SPECIES, words, 7 * LANES))
                .add(-45705983)
                .lanewise(ROL, 22));
        a = b.add(a.add(d.lanewise(XOR, b.and(c.lanewise(XOR, d))))
                .add(IntVector.fromArray(SPECIES, words, 8 * LANES))
                .add(1770035416)
                .lanewise(ROL, 7));
        d = a.add(d.add(c.lanewise(XOR, a.and(b.lanewise(XOR, c))))
                .add(IntVector.fromArray(SPECIES, words, 9 * LANES))
                .add(-1958414417)
                .lanewise(ROL, 12));
        c = d.add(c.add(b.lanewise(XOR, d.and(a.lanewise(XOR, b))))
                .add(IntVector.fromArray(SPECIES, words, 10 * LANES))
                .add(-42063)
                .lanewise(ROL, 17));
        b = c.add(b.add(a.lanewise(XOR, c.and(d.lanewise(XOR, a))))
                .add(IntVector.fromArray(SPECIES, words, 11 * LANES))
                .add(-1990404162)
                .lanewise(ROL, 22));
        a = b.add(a.add(d.lanewise(XOR, b.and(c.lanewise(XOR, d))))
                .add(IntVector.fromArray(SPECIES, words, 12 * LANES))
                .add(1804603682)
                .lanewise(ROL, 7));
        d = a.add(d.add(c.lanewise(XOR, a.and(b.lanewise(XOR, c))))
                .add(IntVector.fromArray(SPECIES, words, 13 * LANES))
                .add(-40341101)
                .lanewise(ROL, 12));
        c = d.add(c.add(b.lanewise(XOR, d.and(a.lanewise(XOR, b))))
                .add(IntVector.fromArray(SPECIES, words, 14 * LANES))
                .add(-1502002290)
                .lanewise(ROL, 17));
        b = c.add(b.add(a.lanewise(XOR, c.and(d.lanewise(XOR, a))))
                .add(IntVector.fromArray(SPECIES, words, 15 * LANES))
                .add(1236535329)
                .lanewise(ROL, 22));
        a.intoArray(work, 0);
        b.intoArray(work, LANES);
        c.intoArray(work, 2 * LANES);
        d.intoArray(work, 3 * LANES);
    }

    private static void roundG(int[] work, int[] words) {
        IntVector a = IntVector.fromArray(SPECIES, work, 0);
        IntVector b = IntVector.fromArray(SPECIES, work, LANES);
        IntVector c = IntVector.fromArray(SPECIES, work, 2 * LANES);
        IntVector d = IntVector.fromArray(SPECIES, work, 3 * LANES);
        a = b.add(a.add(c.lanewise(XOR, d.and(b.lanewise(XOR, c))))
                .add(IntVector.fromArray(SPECIES, words, 1 * LANES))
                .add(-165796510)
                .lanewise(ROL, 5));
        d = a.add(d.add(b.lanewise(XOR, c.and(a.lanewise(XOR, b))))
                .add(IntVector.fromArray(SPECIES, words, 6 * LANES))
                .add(-1069501632)
                .lanewise(ROL, 9));
        c = d.add(c.add(a.lanewise(XOR, b.and(d.lanewise(XOR, a))))
                .add(IntVector.fromArray(SPECIES, words, 11 * LANES))
                .add(643717713)
                .lanewise(ROL, 14));
        b = c.add(b.add(d.lanewise(XOR, a.and(c.lanewise(XOR, d))))
                .add(IntVector.fromArray(SPECIES, words, 0 * LANES))
                .add(-373897302)
                .lanewise(ROL, 20));
        a = b.add(a.add(c.lanewise(XOR, d.and(b.lanewise(XOR, c))))
                .add(IntVector.fromArray(SPECIES, words, 5 * LANES))
                .add(-701558691)
                .lanewise(ROL, 5));
        d = a.add(d.add(b.lanewise(XOR, c.and(a.lanewise(XOR, b))))
                .add(IntVector.fromArray(SPECIES, words, 10 * LANES))
                .add(38016083)
                .lanewise(ROL, 9));
        c = d.add(c.add(a.lanewise(XOR, b.and(d.lanewise(XOR, a))))
                .add(IntVector.fromArray(SPECIES, words, 15 * LANES))
                .add(-660478335)
                .lanewise(ROL, 14));
        b = c.add(b.add(d.lanewise(XOR, a.and(c.lanewise(XOR, d))))
                .add(IntVector.fromArray(SPECIES, words, 4 * LANES))
                .add(-405537848)
                .lanewise(ROL, 20));
        a = b.add(a.add(c.lanewise(XOR, d.and(b.lanewise(XOR, c))))
                .add(IntVector.fromArray(SPECIES, words, 9 * LANES))
                .add(568446438)
                .lanewise(ROL, 5));
        d = a.add(d.add(b.lanewise(XOR, c.and(a.lanewise(XOR, b))))
                .add(IntVector.fromArray(SPECIES, words, 14 * LANES))
                .add(-1019803690)
                .lanewise(ROL, 9));
        c = d.add(c.add(a.lanewise(XOR, b.and(d.lanewise(XOR, a))))
                .add(IntVector.fromArray(SPECIES, words, 3 * LANES))
                .add(-187363961)
                .lanewise(ROL, 14));
        b = c.add(b.add(d.lanewise(XOR, a.and(c.lanewise(XOR, d))))
                .add(IntVector.fromArray(SPECIES, words, 8 * LANES))
                .add(1163531501)
                .lanewise(ROL, 20));
        a = b.add(a.add(c.lanewise(XOR, d.and(b.lanewise(XOR, c))))
                .add(IntVector.fromArray(SPECIES, words, 13 * LANES))
                .add(-1444681467)
                .lanewise(ROL, 5));
        d = a.add(d.add(b.lanewise(XOR, c.and(a.lanewise(XOR, b))))
                .add(IntVector.fromArray(SPECIES, words, 2 * LANES))
                .add(-51403784)
                .lanewise(ROL, 9));
        c = d.add(c.add(a.lanewise(XOR, b.and(d.lanewise(XOR, a))))
                .add(IntVector.fromArray(SPECIES, words, 7 * LANES))
                .add(1735328473)
                .lanewise(ROL, 14));
        b = c.add(b.add(d.lanewise(XOR, a.and(c.lanewise(XOR, d))))
                .add(IntVector.fromArray(SPECIES, words, 12 * LANES))
                .add(-1926607734)
                .lanewise(ROL, 20));
        a.intoArray(work, 0);
        b.intoArray(work, LANES);
        c.intoArray(work, 2 * LANES);
        d.intoArray(work, 3 * LANES);
    }

    private static void roundH(int[] work, int[] words) {
        IntVector a = IntVector.fromArray(SPECIES, work, 0);
        IntVector b = IntVector.fromArray(SPECIES, work, LANES);
        IntVector c = IntVector.fromArray(SPECIES, work, 2 * LANES);
        IntVector d = IntVector.fromArray(SPECIES, work, 3 * LANES);
        a = b.add(a.add(b.lanewise(XOR, c).lanewise(XOR, d))
                .add(IntVector.fromArray(SPECIES, words, 5 * LANES))
                .add(-378558)
                .lanewise(ROL, 4));
        d = a.add(d.add(a.lanewise(XOR, b).lanewise(XOR, c))
                .add(IntVector.fromArray(SPECIES, words, 8 * LANES))
                .add(-2022574463)
                .lanewise(ROL, 11));
        c = d.add(c.add(d.lanewise(XOR, a).lanewise(XOR, b))
                .add(IntVector.fromArray(SPECIES, words, 11 * LANES))
                .add(1839030562)
                .lanewise(ROL, 16));
        b = c.add(b.add(c.lanewise(XOR, d).lanewise(XOR, a))
                .add(IntVector.fromArray(SPECIES, words, 14 * LANES))
                .add(-35309556)
                .lanewise(ROL, 23));
        a = b.add(a.add(b.lanewise(XOR, c).lanewise(XOR, d))
                .add(IntVector.fromArray(SPECIES, words, 1 * LANES))
                .add(-1530992060)
                .lanewise(ROL, 4));
        d = a.add(d.add(a.lanewise(XOR, b).lanewise(XOR, c))
                .add(IntVector.fromArray(SPECIES, words, 4 * LANES))
                .add(1272893353)
                .lanewise(ROL, 11));
        c = d.add(c.add(d.lanewise(XOR, a).lanewise(XOR, b))
                .add(IntVector.fromArray(SPECIES, words, 7 * LANES))
                .add(-155497632)
                .lanewise(ROL, 16));
        b = c.add(b.add(c.lanewise(XOR, d).lanewise(XOR, a))
                .add(IntVector.fromArray(SPECIES, words, 10 * LANES))
                .add(-1094730640)
                .lanewise(ROL, 23));
        a = b.add(a.add(b.lanewise(XOR, c).lanewise(XOR, d))
                .add(IntVector.fromArray(SPECIES, words, 13 * LANES))
                .add(681279174)
                .lanewise(ROL, 4));
        d = a.add(d.add(a.lanewise(XOR, b).lanewise(XOR, c))
                .add(IntVector.fromArray(SPECIES, words, 0 * LANES))
                .add(-358537222)
                .lanewise(ROL, 11));
        c = d.add(c.add(d.lanewise(XOR, a).lanewise(XOR, b))
                .add(IntVector.fromArray(SPECIES, words, 3 * LANES))
                .add(-722521979)
                .lanewise(ROL, 16));
        b = c.add(b.add(c.lanewise(XOR, d).lanewise(XOR, a))
                .add(IntVector.fromArray(SPECIES, words, 6 * LANES))
                .add(76029189)
                .lanewise(ROL, 23));
        a = b.add(a.add(b.lanewise(XOR, c).lanewise(XOR, d))
                .add(IntVector.fromArray(SPECIES, words, 9 * LANES))
                .add(-640364487)
                .lanewise(ROL, 4));
        d = a.add(d.add(a.lanewise(XOR, b).lanewise(XOR, c))
                .add(IntVector.fromArray(SPECIES, words, 12 * LANES))
                .add(-421815835)
                .lanewise(ROL, 11));
        c = d.add(c.add(d.lanewise(XOR, a).lanewise(XOR, b))
                .add(IntVector.fromArray(SPECIES, words, 15 * LANES))
                .add(530742520)
                .lanewise(ROL, 16));
        b = c.add(b.add(c.lanewise(XOR, d).lanewise(XOR, a))
                .add(IntVector.fromArray(SPECIES, words, 2 * LANES))
                .add(-995338651)
                .lanewise(ROL, 23));
        a.intoArray(work, 0);
        b.intoArray(work, LANES);
        c.intoArray(work, 2 * LANES);
        d.intoArray(work, 3 * LANES);
    }

    private static void roundI(int[] work, int[] words) {
        IntVector a = IntVector.fromArray(SPECIES, work, 0);
        IntVector b = IntVector.fromArray(SPECIES, work, LANES);
        IntVector c = IntVector.fromArray(SPECIES, work, 2 * LANES);
        IntVector d = IntVector.fromArray(SPECIES, work, 3 * LANES);
        a = b.add(a.add(c.lanewise(XOR, b.or(d.not())))
                .add(IntVector.fromArray(SPECIES, words, 0 * LANES))
                .add(-198630844)
                .lanewise(ROL, 6));
        d = a.add(d.add(b.lanewise(XOR, a.or(c.not())))
                .add(IntVector.fromArray(SPECIES, words, 7 * LANES))
                .add(1126891415)
                .lanewise(ROL, 10));
        c = d.add(c.add(a.lanewise(XOR, d.or(b.not())))
                .add(IntVector.fromArray(SPECIES, words, 14 * LANES))
                .add(-1416354905)
                .lanewise(ROL, 15));
        b = c.add(b.add(d.lanewise(XOR, c.or(a.not())))
                .add(IntVector.fromArray(SPECIES, words, 5 * LANES))
                .add(-57434055)
                .lanewise(ROL, 21));
        a = b.add(a.add(c.lanewise(XOR, b.or(d.not())))
                .add(IntVector.fromArray(SPECIES, words, 12 * LANES))
                .add(1700485571)
                .lanewise(ROL, 6));
        d = a.add(d.add(b.lanewise(XOR, a.or(c.not())))
                .add(IntVector.fromArray(SPECIES, words, 3 * LANES))
                .add(-1894986606)
                .lanewise(ROL, 10));
        c = d.add(c.add(a.lanewise(XOR, d.or(b.not())))
                .add(IntVector.fromArray(SPECIES, words, 10 * LANES))
                .add(-1051523)
                .lanewise(ROL, 15));
        b = c.add(b.add(d.lanewise(XOR, c.or(a.not())))
                .add(IntVector.fromArray(SPECIES, words, 1 * LANES))
                .add(-2054922799)
                .lanewise(ROL, 21));
        a = b.add(a.add(c.lanewise(XOR, b.or(d.not())))
                .add(IntVector.fromArray(SPECIES, words, 8 * LANES))
                .add(1873313359)
                .lanewise(ROL, 6));
        d = a.add(d.add(b.lanewise(XOR, a.or(c.not())))
                .add(IntVector.fromArray(SPECIES, words, 15 * LANES))
                .add(-30611744)
                .lanewise(ROL, 10));
        c = d.add(c.add(a.lanewise(XOR, d.or(b.not())))
                .add(IntVector.fromArray(SPECIES, words, 6 * LANES))
                .add(-1560198380)
                .lanewise(ROL, 15));
        b = c.add(b.add(d.lanewise(XOR, c.or(a.not())))
                .add(IntVector.fromArray(SPECIES, words, 13 * LANES))
                .add(1309151649)
                .lanewise(ROL, 21));
        a = b.add(a.add(c.lanewise(XOR, b.or(d.not())))
                .add(IntVector.fromArray(SPECIES, words, 4 * LANES))
                .add(-145523070)
                .lanewise(ROL, 6));
        d = a.add(d.add(b.lanewise(XOR, a.or(c.not())))
                .add(IntVector.fromArray(SPECIES, words, 11 * LANES))
                .add(-1120210379)
                .lanewise(ROL, 10));
        c = d.add(c.add(a.lanewise(XOR, d.or(b.not())))
                .add(IntVector.fromArray(SPECIES, words, 2 * LANES))
                .add(718787259)
                .lanewise(ROL, 15));
        b = c.add(b.add(d.lanewise(XOR, c.or(a.not())))
                .add(IntVector.fromArray(SPECIES, words, 9 * LANES))
                .add(-343485551)
                .lanewise(ROL, 21));
        a.intoArray(work, 0);
        b.intoArray(work, LANES);
        c.intoArray(work, 2 * LANES);
        d.intoArray(work, 3 * LANES);
    }
}
