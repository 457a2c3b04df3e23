// SPDX-License-Identifier: Apache-2.0
// Guava's own BloomFilter timed on the keys simdbloom-bench --only guava uses (perf/guava.cc):
// SplitMix64 longs from seed 12345 + n (n present keys, then n absent ones), Funnels.longFunnel(),
// BloomFilter.create(funnel, n, fpp). Per size: put() of the n keys into a fresh filter, then
// mightContain() over half present and half absent keys, each the median of at least 3
// repetitions of at least --min-seconds, after a warm-up that lets the JIT compile both loops.
// Prints one JSON object per measurement, as simdbloom-bench --json does. Run by
// perf/guava_bench.sh, which compiles it against Debian's libguava-java.
import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

public final class GuavaBench {
  private static long state;

  private static long splitMix() {
    long z = (state += 0x9E3779B97F4A7C15L);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private static volatile long sink;

  private static double median(List<Double> v) {
    Collections.sort(v);
    return v.get(v.size() / 2);
  }

  public static void main(String[] args) {
    double fpp = 0.01;
    double minSeconds = 0.2;
    List<Long> sizes = new ArrayList<>();
    for (int i = 0; i < args.length; ++i) {
      switch (args[i]) {
        case "--fpp": fpp = Double.parseDouble(args[++i]); break;
        case "--min-seconds": minSeconds = Double.parseDouble(args[++i]); break;
        case "--keys":
          for (String s : args[++i].split(",")) sizes.add((long) Double.parseDouble(s));
          break;
        default:
          System.err.println("usage: GuavaBench [--keys N[,N...]] [--fpp P] [--min-seconds S]");
          System.exit(2);
      }
    }
    if (sizes.isEmpty()) {
      sizes.add(100000L);
      sizes.add(10000000L);
    }
    // Warm-up: the JIT compiles put, mightContain and the Murmur3 hash before anything is timed.
    run(200000, fpp, 1.0, false);
    for (long n : sizes) run((int) n, fpp, minSeconds, true);
  }

  private static void run(int n, double fpp, double minSeconds, boolean print) {
    state = 12345L + n;
    long[] keys = new long[n];
    long[] absent = new long[n];
    for (int i = 0; i < n; ++i) keys[i] = splitMix();
    for (int i = 0; i < n; ++i) absent[i] = splitMix();
    List<Double> ins = new ArrayList<>();
    List<Double> con = new ArrayList<>();
    BloomFilter<Long> f = null;
    long start = System.nanoTime();
    while (ins.size() < 3 || (System.nanoTime() - start < minSeconds * 1e9 && ins.size() < 1000)) {
      f = BloomFilter.create(Funnels.longFunnel(), n, fpp);  // untimed: a zeroed array
      long t0 = System.nanoTime();
      for (int i = 0; i < n; ++i) f.put(keys[i]);
      ins.add((System.nanoTime() - t0) / (double) n);
    }
    long hits = 0;
    start = System.nanoTime();
    while (con.size() < 3 || (System.nanoTime() - start < minSeconds * 1e9 && con.size() < 1000)) {
      long t0 = System.nanoTime();
      long h = 0;
      for (int i = 0; i < n / 2; ++i) h += f.mightContain(keys[i]) ? 1 : 0;
      for (int i = n / 2; i < n; ++i) h += f.mightContain(absent[i]) ? 1 : 0;
      con.add((System.nanoTime() - t0) / (double) n);
      hits = h;
    }
    long fp = 0;
    for (int i = 0; i < n; ++i) fp += f.mightContain(absent[i]) ? 1 : 0;
    sink = hits;
    if (!print) return;
    // Guava keeps its bit count private: writeTo's length is 6 header bytes and 8 per long.
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try {
      f.writeTo(bytes);
    } catch (java.io.IOException e) {
      throw new RuntimeException(e);
    }
    long bits = (bytes.size() - 6L) * 8;
    String common = String.format(
        "\"bench\":\"guava_java\",\"keys\":%d,\"fpp_requested\":%s,\"bits\":%d", n, fpp, bits);
    System.out.printf("{%s,\"op\":\"insert\",\"ns_per_key\":%.4f}%n", common, median(ins));
    System.out.printf("{%s,\"op\":\"contains\",\"ns_per_key\":%.4f,\"fpr_measured\":%.6f}%n",
        common, median(con), fp / (double) n);
  }
}
