// SPDX-License-Identifier: Apache-2.0
// The ground truth for simdbloom's guava layouts: Guava's own BloomFilter (Debian's libguava-java,
// 31.1) builds filters from deterministic keys and answers for them. Two modes:
//   generate DIR  writes DIR/cases.txt, DIR/sizing.txt and, per case, DIR/<name>.guava (Guava's
//                 writeTo bytes) and DIR/<name>.hits (mightContain of every probe key, a bitmap);
//   check DIR     reads the same cases, with simdbloom's bytes and answers in DIR (the files a
//                 C++ build wrote, same names): Guava's readFrom of our bytes must answer every
//                 probe exactly as we did, and our bytes must equal Guava's writeTo bytes.
// tests/guava/README.md documents the files; tests/guava/roundtrip.sh runs both directions.
import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnel;
import com.google.common.hash.Funnels;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

public final class GuavaOracle {
  // splitmix64: key i of a case with seed s is derived from Mix(s + (i + 1) * GAMMA).
  static final long GAMMA = 0x9E3779B97F4A7C15L;

  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  static long x(long seed, long i) {
    return mix(seed + (i + 1) * GAMMA);
  }

  static final String[] SUFFIX = {"", "\u00e9", "\u20ac", "\uD83D\uDE00"};

  // The key objects of each funnel (README.md, "Keys").
  static Object key(String funnel, long seed, long i) {
    final long v = x(seed, i);
    switch (funnel) {
      case "long":
        return v;
      case "int":
        return (int) v;
      case "utf8":
        return "k" + Long.toUnsignedString(v) + SUFFIX[(int) (v >>> 62)];
      case "bytes": {
        final int len = (int) (v >>> 58);
        final byte[] b = new byte[len];
        for (int j = 0; j < len; ++j) b[j] = (byte) ((v >>> (8 * (j & 7))) + j);
        return b;
      }
      default:
        throw new IllegalArgumentException(funnel);
    }
  }

  @SuppressWarnings("unchecked")
  static Funnel<Object> funnelOf(String funnel) {
    switch (funnel) {
      case "long":
        return (Funnel<Object>) (Funnel<?>) Funnels.longFunnel();
      case "int":
        return (Funnel<Object>) (Funnel<?>) Funnels.integerFunnel();
      case "utf8":
        return (Funnel<Object>) (Funnel<?>) Funnels.stringFunnel(StandardCharsets.UTF_8);
      case "bytes":
        return (Funnel<Object>) (Funnel<?>) Funnels.byteArrayFunnel();
      default:
        throw new IllegalArgumentException(funnel);
    }
  }

  static final class Case {
    String name, funnel;
    int strategy;  // Guava's ordinal: 0 MURMUR128_MITZ_32, 1 MURMUR128_MITZ_64
    long n;
    double fpp;
    long seed;
    int inserted, absent;

    String line() {
      return String.format(
          "%s %s %d %d %016x %d %d %d %s",
          name, funnel, strategy, n, Double.doubleToRawLongBits(fpp), seed, inserted, absent,
          Double.toString(fpp));
    }

    static Case parse(String line) {
      final String[] f = line.trim().split(" +");
      final Case c = new Case();
      c.name = f[0];
      c.funnel = f[1];
      c.strategy = Integer.parseInt(f[2]);
      c.n = Long.parseLong(f[3]);
      c.fpp = Double.longBitsToDouble(Long.parseUnsignedLong(f[4], 16));
      c.seed = Long.parseLong(f[5]);
      c.inserted = Integer.parseInt(f[6]);
      c.absent = Integer.parseInt(f[7]);
      return c;
    }
  }

  static byte[] bytesOf(BloomFilter<Object> f) throws IOException {
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    return out.toByteArray();
  }

  // Guava's filter for a case: create() (MITZ_64); for MITZ_32, the same size and k read back
  // from an all-zero stream with ordinal 0 (create no longer offers it), then put() by Guava's own
  // MITZ_32 code.
  static BloomFilter<Object> build(Case c) throws IOException {
    final Funnel<Object> funnel = funnelOf(c.funnel);
    BloomFilter<Object> f = BloomFilter.create(funnel, c.n, c.fpp);
    if (c.strategy == 0) {
      final byte[] b = bytesOf(f);
      Arrays.fill(b, 6, b.length, (byte) 0);
      b[0] = 0;
      f = BloomFilter.readFrom(new ByteArrayInputStream(b), funnel);
    } else if (c.strategy != 1) {
      throw new IllegalArgumentException("strategy " + c.strategy);
    }
    for (int i = 0; i < c.inserted; ++i) f.put(key(c.funnel, c.seed, i));
    return f;
  }

  static byte[] hits(BloomFilter<Object> f, Case c) {
    final int probes = c.inserted + c.absent;
    final byte[] bits = new byte[(probes + 7) / 8];
    for (int i = 0; i < probes; ++i) {
      if (f.mightContain(key(c.funnel, c.seed, i))) bits[i >> 3] |= (byte) (1 << (i & 7));
    }
    return bits;
  }

  static List<Case> cases() {
    final List<Case> list = new ArrayList<>();
    final double ln2sq = Math.log(2) * Math.log(2);
    // (n, fpp): k from 1 to 20; bit sizes that are not powers of two, and some that are (fpp
    // chosen so that ceil(numBits / 64) longs is a power of two).
    final Object[][] shapes = {
      {"k1", 600L, 0.5},
      {"k2", 900L, 0.25},
      {"k3", 700L, 0.12},
      {"k5", 1500L, 0.03},
      {"k7", 2000L, 0.01},
      {"k10", 1200L, 0.001},
      {"k13", 800L, 1e-4},
      {"k17", 500L, 1e-5},
      {"k20", 400L, 1e-6},
      {"pow2a", 1000L, Math.exp(-(8192.0 - 30) * ln2sq / 1000)},  // 128 longs
      {"pow2b", 333L, Math.exp(-(4096.0 - 1) * ln2sq / 333)},  // 64 longs
      {"tiny", 3L, 0.2},  // one long
      {"big", 60000L, 0.02},  // 7637 longs (long funnel only)
    };
    final String[] funnels = {"long", "int", "utf8", "bytes"};
    long seed = 1;
    for (String funnel : funnels) {
      for (Object[] s : shapes) {
        for (int strategy = 0; strategy <= 1; ++strategy) {
          // Both strategies for every funnel, but not every shape twice (size of the files).
          if (strategy == 0 && !(s[0].equals("k1") || s[0].equals("k7") || s[0].equals("k20")
              || s[0].equals("pow2a") || s[0].equals("tiny"))) {
            continue;
          }
          if (s[0].equals("big") && !funnel.equals("long")) continue;
          final Case c = new Case();
          c.funnel = funnel;
          c.strategy = strategy;
          c.n = (Long) s[1];
          c.fpp = (Double) s[2];
          c.name = funnel + "_" + s[0] + (strategy == 0 ? "_mitz32" : "");
          c.seed = seed++;
          c.inserted = (int) c.n;
          c.absent = c.n > 10000 ? (int) c.n : Math.max(2000, 4 * (int) c.n);
          list.add(c);
        }
      }
    }
    return list;
  }

  // Guava's sizing of create(n, fpp), through its own package-private functions (create itself
  // would allocate the filter): numBits, then k, for a grid of n and fpp.
  static void sizing(Path dir) throws Exception {
    final Method bits =
        BloomFilter.class.getDeclaredMethod("optimalNumOfBits", long.class, double.class);
    final Method hashes =
        BloomFilter.class.getDeclaredMethod("optimalNumOfHashFunctions", long.class, long.class);
    bits.setAccessible(true);
    hashes.setAccessible(true);
    final long[] ns = {1, 2, 3, 7, 10, 64, 100, 1000, 1234, 4096, 10000, 65536, 99999, 100000,
      1000000, 7777777, 10000000, 123456789, 1000000000L, 1500000000L, 3000000000L};
    final double[] fpps = {0.9, 0.5, 0.3, 0.1, 0.05, 0.03, 0.01, 0.005, 0.001, 3e-4, 1e-4, 1e-5,
      1e-6, 1e-7, 1e-8, 1e-9, 1e-12};
    try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(dir.resolve("sizing.txt")))) {
      w.println("# n fpp_bits_hex numBits k (Guava 31.1 optimalNumOfBits, "
          + "optimalNumOfHashFunctions; longs = ceil(numBits / 64))");
      for (long n : ns) {
        for (double p : fpps) {
          final long m = (Long) bits.invoke(null, n, p);
          if (m <= 0) continue;  // create() refuses it (an empty bit array)
          final int k = (Integer) hashes.invoke(null, n, m);
          w.printf("%d %016x %d %d%n", n, Double.doubleToRawLongBits(p), m, k);
        }
      }
    }
  }

  static void generate(Path dir) throws Exception {
    Files.createDirectories(dir);
    try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(dir.resolve("cases.txt")))) {
      w.println("# name funnel strategy n fpp_bits_hex seed inserted absent fpp");
      for (Case c : cases()) {
        final BloomFilter<Object> f = build(c);
        Files.write(dir.resolve(c.name + ".guava"), bytesOf(f));
        Files.write(dir.resolve(c.name + ".hits"), hits(f, c));
        w.println(c.line());
      }
    }
    sizing(dir);
  }

  static List<Case> readCases(Path file) throws IOException {
    final List<Case> list = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      if (!line.startsWith("#") && !line.isBlank()) list.add(Case.parse(line));
    }
    return list;
  }

  // Ours against Guava's: bytes equal to Guava's writeTo for the same keys; Guava's readFrom of
  // our bytes answering every probe as we answered.
  static int check(Path golden, Path ours) throws Exception {
    int failures = 0, checked = 0;
    for (Case c : readCases(golden.resolve("cases.txt"))) {
      final byte[] ourBytes = Files.readAllBytes(ours.resolve(c.name + ".guava"));
      final byte[] ourHits = Files.readAllBytes(ours.resolve(c.name + ".hits"));
      final byte[] guavaBytes = bytesOf(build(c));
      if (!Arrays.equals(ourBytes, guavaBytes)) {
        System.out.println("FAIL " + c.name + ": our bytes differ from Guava's writeTo");
        ++failures;
      }
      final BloomFilter<Object> read =
          BloomFilter.readFrom(new ByteArrayInputStream(ourBytes), funnelOf(c.funnel));
      final byte[] guavaHits = hits(read, c);
      if (!Arrays.equals(ourHits, guavaHits)) {
        System.out.println("FAIL " + c.name + ": Guava's readFrom of our bytes answers otherwise");
        ++failures;
      }
      ++checked;
    }
    System.out.println("checked " + checked + " cases, " + failures + " failures");
    return failures == 0 && checked > 0 ? 0 : 1;
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("generate")) {
      generate(Paths.get(args[1]));
    } else if (args.length == 3 && args[0].equals("check")) {
      System.exit(check(Paths.get(args[1]), Paths.get(args[2])));
    } else {
      System.err.println("usage: GuavaOracle generate DIR | check GOLDEN_DIR OUR_DIR");
      System.exit(2);
    }
  }
}
