// SPDX-License-Identifier: Apache-2.0
// The command's help texts: `simdbloom --help` (kGlobalHelp) and `simdbloom COMMAND --help`
// (CommandHelp: usage, options, one example). The man page (simdbloom.1) and lib/cli/README.md say
// the same at length; keep the three in step.
#ifndef SIMDBLOOM_CLI_HELP_H_
#define SIMDBLOOM_CLI_HELP_H_

#include <cstring>

namespace simdbloom {
namespace cli {

constexpr char kGlobalHelp[] =
    R"(usage: simdbloom COMMAND [OPTIONS] [FILE...]
       simdbloom COMMAND --help      (that command's options and an example)
       simdbloom --version
Bloom filters over files of keys. Keys are lines (ending at \n, or at NUL with -z; a trailing
\r is kept unless --strip-cr); FILE '-' or no FILE reads stdin.

Commands:
  build      build a filter from the keys of FILEs and save it to -o OUT (atomically);
             --counting: a filter that can delete keys; --areas: one area per FILE
  query      print the keys that may be in FILTER (--absent: that surely are not)
  remove     delete the keys of FILEs from a counting filter (saved atomically)
  classify   print each key with the area of a spatial filter it is in
  dedup      print each key the first time it is (probably) seen
  intersect  print the keys of B that may be in A
  info       describe a stored filter of any kind (geometry, counts, expected FPR)
  merge      the union of two compatible filters, saved to -o OUT
  parquet    probe a Parquet file's row-group Bloom filters for values of a column

Options of every command: -q/--quiet, --json, --stats FILE, --progress, --strip-cr,
-t/--threads T, --max-key-bytes N, -h/--help; -z/--null for build, query, remove, classify, dedup and intersect.
-q/--quiet: query and classify print nothing and answer by the exit status; the other commands
still write their data (dedup's keys, info's description, ...) and drop only the notes and the
progress on stderr. -t/--threads: build, query and intersect; the others refuse T > 1.
--json writes a summary object to stderr (never into the data on stdout; info --json prints
only the filter's description, on stdout); --stats FILE writes it to FILE instead.

Exit status: query and classify (as grep): 0 a key was selected (classify: is in an area), 1
none, 2 error. Other commands: 0 success, 1 failure (unreadable or missing file, not a filter,
corrupt or malformed file, incompatible filters, write error, out of memory), 2 usage error
(unknown command or option, bad value, a filter of a kind the command does not handle).
See simdbloom(1).
)";

constexpr char kCommonOptions[] =
    R"(  -q, --quiet         query, classify: print nothing, answer by the exit status; other
                      commands: no notes, no progress (their data is still written)
      --json          a summary object on stderr after the work (not on stdout)
      --stats FILE    write the summary object to FILE (atomically) instead of stderr
      --progress      progress bar on stderr even when it is not a terminal
      --strip-cr      drop a trailing \r from each key
  -t, --threads T     threads, 1..256: build, query and intersect use them (the other
                      commands run on one thread and refuse T > 1, exit 2)
      --max-key-bytes N  refuse a key longer than N bytes, exit 2 (default 256 MiB)
  -h, --help          this help
)";

struct CommandHelp {
  const char* name;
  const char* text;  // usage, what it does, its own options; kCommonOptions and the example follow
  const char* example;
};

constexpr CommandHelp kCommandHelp[] = {
    {"build",
     R"(usage: simdbloom build [-n N] [--fpp P] [--layout L] [--seed S] [-z] -o OUT [FILE...]
       simdbloom build --counting [-n N] [--fpp P] [--layout L] [--seed S] [-z] -o OUT [FILE...]
       simdbloom build --areas [-n N] [--fpp P] [--seed S] [-z] -o OUT FILE...
       simdbloom build --format guava [--layout guava32] [--key-type T] -n N [--fpp P] -o OUT [FILE...]
Builds a filter from the keys of FILEs (stdin without FILE) and saves it to OUT atomically: a
failure or a kill leaves the old OUT (or none). OUT may not be an input; onto a symbolic link the
file it points to is replaced; -o /dev/stdout or a FIFO is streamed into. Without -n, regular
files are counted in a first pass (a plain filter); a pipe makes a scalable filter.
--counting makes a counting filter (4-bit counters: simdbloom remove deletes keys; each line
counts, repeats too); --areas a spatial filter with one area per FILE (area i = the i-th FILE,
named by it; simdbloom classify tells a key's area). Both need -n on a pipe.
  -o, --output OUT    the filter file (required)
  -n N                expected distinct keys (1e6, 10M, 5G work; --areas: of all areas)
      --fpp P         false-positive rate, 1e-9 <= P < 1 (default 0.01)
  -l, --layout L      block512 (default), register64, split_block256 (Parquet), classic;
                      --counting: blocked (default), classic
      --seed S        hash seed, decimal or 0x hex (default 0)
      --counting      a counting filter (keys can be removed)
      --areas         a spatial filter, one area per FILE
      --key-type T    how lines are keys: bytes (default), int64 or int32 (a decimal integer
                      per line, a key by its value: the library's integer keys)
      --format F      simdbloom (default) or guava: Guava's BloomFilter, its writeTo bytes
                      (layout guava = MURMUR128_MITZ_64, or guava32; sized as Guava's create;
                      --key-type bytes = stringFunnel(UTF_8), int64 = longFunnel, int32 =
                      integerFunnel)
  -z, --null          keys end at NUL, not newline
)",
     "  simdbloom build -n 1M -o blocklist.sbf urls.txt\n"
     "  simdbloom build --format guava --key-type int64 -n 1M -o ids.guava ids.txt\n"},
    {"query",
     R"(usage: simdbloom query [--absent] [-c] [-q] [-z] FILTER [FILE...]
       simdbloom query [--first | --absent] [-c] [-q] [-z] -f FILTER [-f FILTER...] [FILE...]
Prints the keys of FILEs (stdin without FILE) that may be in FILTER (plain, scalable or
counting), in input order; --absent prints those that are surely not in it. Exit status as grep: 0 if a key was selected, 1 if none,
2 on any error. -q prints nothing and stops at the first selected key.
With -f, every key is probed against every FILTER given (each hashed once, not once per filter)
and each match prints as KEY<TAB>FILTER, in input order, then in -f order.
      --absent        select the keys that are surely absent (with -f: in none of the filters)
  -c, --count         print only the number of selected keys (with -f: of the lines)
  -f, --filter FILTER probe this filter too (repeat: one -f per filter)
      --first         with -f: only the first filter (in -f order) that may hold each key
      --key-type T    lines are bytes (default), int64 or int32 keys (decimal integers); a Guava
                      file (writeTo bytes, found by its header) needs it: its bytes do not say
                      which funnel made it
  -z, --null          keys end at NUL, not newline, on input and output
)",
     "  printf '%s\\n' \"$url\" | simdbloom query -q blocklist.sbf && echo blocked\n"},
    {"remove",
     R"(usage: simdbloom remove [-o OUT] [--force] [-z] FILTER [FILE...]
Deletes the keys of FILEs (stdin without FILE) from the counting filter FILTER (build
--counting) and saves it atomically over FILTER, or to OUT. Each line removes one copy: a key
inserted twice and removed once is still present. A key surely not in the filter proves that the
input holds keys never inserted, whose false positives would delete inserted keys: then nothing
is saved and the exit status is 1, unless --force (which says how many removals may have been
false positives).
  -o, --output OUT    write the filter to OUT instead of replacing FILTER
      --force         remove the keys found even when some keys are not in the filter
  -z, --null          keys end at NUL, not newline
)",
     "  simdbloom remove sessions.sbc expired.txt\n"},
    {"classify",
     R"(usage: simdbloom classify [--labels] [-q] [-z] FILTER [FILE...]
Prints each key of FILEs (stdin without FILE) with the area of the spatial filter FILTER (build
--areas) it is in: KEY<TAB>AREA, in input order. AREA is the area's name (build --areas: its
FILE; control bytes and invalid UTF-8 escaped as \\ \n \t \r \ooo), its label where it has no
name, and - for a key in no area. A key of an area is never reported in no area nor in a lower
one (a higher one with a small probability, info's ISEP); a key of no area gets one at the
filter's rate. Exit status as grep: 0 if a key is in an area, 1 if
none, 2 on any error. -q prints nothing and stops at the first key in an area.
      --labels        print the area's label (1, 2, ...; 0 for no area) instead of its name
  -z, --null          keys end at NUL, not newline, on input and output
)",
     "  simdbloom classify regions.sbs visitors.txt\n"},
    {"dedup",
     R"(usage: simdbloom dedup [-n N] [--fpp P] [-z] [FILE...]
Prints each key the first time it is (probably) seen, in input order: a repeat is never printed;
a new key is dropped only on a false positive (at rate P). Without -n, regular files are counted
in a first pass; a pipe makes a scalable filter. One thread (-t 2 is refused); -q silences the
notes on stderr, never the keys.
  -n N                expected distinct keys
      --fpp P         false-positive rate (default 0.01)
  -z, --null          keys end at NUL, not newline, on input and output
)",
     "  simdbloom dedup crawl.txt > unique.txt\n"},
    {"intersect",
     R"(usage: simdbloom intersect [-n N] [--fpp P] [-z] A B
Prints the keys of B that may be in A, in B's order: a filter of A's keys (memory: the filter,
whatever the files' size) probed with B's. Every common key is printed; others at rate P.
  -n N                expected distinct keys of A
      --fpp P         false-positive rate (default 0.01)
  -z, --null          keys end at NUL, not newline, on input and output
)",
     "  simdbloom intersect a.txt b.txt > common.txt\n"},
    {"info",
     R"(usage: simdbloom info [--json] FILTER
Describes a stored filter of any kind (plain, scalable, counting, spatial, shbf_a, shbf_x: told by
the file's magic): its key type (bytes, int64, int32, legacy), its geometry (layout, bits or
counters or cells, k, bytes, seed), its keys, fill and expected false-positive rate, and each
stage of a chain or area of a spatial filter.
--json prints only the description as one JSON object, on stdout. A Guava file (writeTo bytes)
needs --key-type bytes, int64 or int32: the funnel that made it, which its bytes do not say.
      --key-type T    the key type of a Guava file
)",
     "  simdbloom info --json blocklist.sbf\n"},
    {"merge",
     R"(usage: simdbloom merge -o OUT A B
Saves the union of filters A and B (plain: same layout, size, k, seed and key type; two mergeable
chains; counting: same geometry, counters added, capped at 15) to OUT atomically. OUT may be A or
B: both are read before OUT is replaced. Spatial and shifting set filters, and filters of
different key types, cannot be merged (exit 2). OUT has A's format (Guava's writeTo bytes
for a Guava file A, which needs --key-type).
  -o, --output OUT    the merged filter (required)
      --key-type T    the key type of Guava files (bytes, int64, int32)
)",
     "  simdbloom merge monday.sbf tuesday.sbf -o week.sbf\n"},
    {"parquet",
     R"(usage: simdbloom parquet FILE --column NAME VALUE...
       simdbloom parquet --keys KEYS --column NAME [-c] FILE...
Probes the Bloom filter of column NAME (a.b.c for nested columns) in each row group of the Parquet
FILE for each VALUE: of an INT32 or INT64 column a decimal integer, probed by value (negative
values after --); of a BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY column its bytes (other types are
refused); prints ROW_GROUP<TAB>VALUE<TAB>maybe|no. A row group without a filter answers maybe
(noted on stderr). A malformed file is a failure (exit 1); an unknown column, a column of another
type or a bad value a usage error (2).
With --keys, every line of KEYS ('-': stdin) is probed against every row group of every FILE
(one batch against all their filters, reading only footers and filters) and each row group that
may hold a key prints FILE<TAB>ROW_GROUP<TAB>KEY; -c prints FILE<TAB>ROW_GROUP<TAB>COUNT instead.
      --column NAME   the column (required, once: every VALUE is probed in it)
      --keys KEYS     the keys to probe, one per line, against every FILE
  -c, --count         with --keys: how many keys each row group may hold
)",
     "  simdbloom parquet events.parquet --column user_id 42 4711\n"
     "  simdbloom parquet --keys ids.txt --column user_id -c 2026-*.parquet\n"},
};

inline const CommandHelp* FindHelp(const char* name) {
  for (const auto& h : kCommandHelp) {
    if (std::strcmp(h.name, name) == 0) return &h;
  }
  return nullptr;
}

}  // namespace cli
}  // namespace simdbloom

#endif  // SIMDBLOOM_CLI_HELP_H_
