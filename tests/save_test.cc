// SPDX-License-Identifier: Apache-2.0
// Saves never destroy what they replace (lib/formats/file_io.h, WriteFileAtomically): for every
// kind of filter, a save that fails part-way (RLIMIT_FSIZE with SIGXFSZ ignored: the write fails
// with EFBIG, as on a full disk) leaves the old file byte-identical and no temporary beside it; a
// view saved onto the file it maps keeps working; links, permission bits and FIFOs are handled.
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "doctest/doctest.h"
#include "lib/formats/file_io.h"
#include "simdbloom/counting.hpp"
#include "simdbloom/scalable.hpp"
#include "simdbloom/shifting.hpp"
#include "simdbloom/simdbloom.hpp"
#include "simdbloom/spatial.hpp"
#include "tests/test_util.h"

namespace simdbloom {
namespace {

// A fresh, empty directory, removed with its files at the end.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/simdbloom_save_test.XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    path_ = tmpl;
  }
  ~TempDir() {
    for (const auto& name : Names()) std::remove((path_ + "/" + name).c_str());
    ::rmdir(path_.c_str());
  }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  // The directory's entries, sorted, without "." and "..".
  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    DIR* d = ::opendir(path_.c_str());
    if (d == nullptr) return names;
    while (const dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::string path_;
};

std::string Bytes(const Filter& f) {
  std::ostringstream out;
  f.save(out);
  return out.str();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Runs fn in a child process (AsUser: as an unprivileged user, uid/gid 65534 when the tests run
// as root, else as themselves); returns what it printed, or "child died".
template <class Fn>
std::string InChild(bool drop_root, const Fn& fn) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    if (drop_root && ::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) _exit(3);
    const std::string out = fn();
    const ssize_t wrote = ::write(fds[1], out.data(), out.size());
    _exit(wrote == static_cast<ssize_t>(out.size()) ? 0 : 1);
  }
  ::close(fds[1]);
  std::string out;
  char buf[1024];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? out : "child died";
}
template <class Fn>
std::string AsUser(const Fn& fn) {
  return InChild(true, fn);
}
template <class Fn>
std::string AsUserOrRoot(const Fn& fn) {
  return InChild(false, fn);
}

// RLIMIT_FSIZE lowered to `bytes` with SIGXFSZ ignored while alive: a write past it fails with
// EFBIG, the way a full disk fails with ENOSPC. Both restored at the end.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &old_) == 0);
    old_handler_ = ::signal(SIGXFSZ, SIG_IGN);
    rlimit lim = old_;
    lim.rlim_cur = bytes;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &lim) == 0);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_);
    ::signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit old_;
  sighandler_t old_handler_;
};

// Saves a small `old_save` to `path`, then runs `big_save` (a save of more than 64 KiB) under a
// 16 KiB file size limit: it must throw kIo naming the path and the reason, leave the old bytes
// and no other file.
void CheckFailedSaveKeepsOld(const char* kind,
                             const std::function<void(const std::string&)>& old_save,
                             const std::function<void(const std::string&)>& big_save) {
  CAPTURE(kind);
  TempDir dir;
  const std::string path = dir / "f.sbf";
  old_save(path);
  const std::string before = ReadFile(path);
  REQUIRE(!before.empty());
  REQUIRE(before.size() < 16384);
  std::string message;
  {
    FileSizeLimit limit(16384);
    try {
      big_save(path);
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kIo);
      message = e.what();
    }
  }
  CHECK_MESSAGE(!message.empty(), "the save under a file size limit did not fail");
  CHECK(message.find(path) != std::string::npos);
  CHECK(message.find(std::strerror(EFBIG)) != std::string::npos);
  CHECK(ReadFile(path) == before);
  CHECK(dir.Names() == std::vector<std::string>{"f.sbf"});
}

TEST_CASE("save: a failed save leaves the old file of every kind unchanged") {
  const auto keys = test::RandomKeys(1000, 7);
  CheckFailedSaveKeepsOld(
      "Filter", [](const std::string& p) { Filter::create(100, 0.01).save_file(p); },
      [&](const std::string& p) {
        Filter f = Filter::create(100000, 0.01);
        f.insert({keys.data(), keys.size()});
        f.save_file(p);
      });
  CheckFailedSaveKeepsOld(
      "CountingFilter",
      [](const std::string& p) { CountingFilter::create(100, 0.01).save_file(p); },
      [&](const std::string& p) {
        CountingFilter f = CountingFilter::create(100000, 0.01);
        f.insert(Keys(keys.data(), keys.size()));
        f.save_file(p);
      });
  CheckFailedSaveKeepsOld(
      "ScalableFilter",
      [](const std::string& p) { ScalableFilter::create(100, 0.01).save_file(p); },
      [&](const std::string& p) { ScalableFilter::create(100000, 0.01).save_file(p); });
  CheckFailedSaveKeepsOld(
      "SpatialFilter",
      [](const std::string& p) { SpatialFilter::create(100, 0.01, 2).save_file(p); },
      [&](const std::string& p) {
        SpatialFilter f = SpatialFilter::create(100000, 0.01, 2);
        f.insert(1, {keys.data(), keys.size()});
        f.save_file(p);
      });
  CheckFailedSaveKeepsOld(
      "ShiftingAssociation",
      [](const std::string& p) { ShiftingAssociation::create(100, 0.01).save_file(p); },
      [&](const std::string& p) { ShiftingAssociation::create(100000, 0.01).save_file(p); });
  CheckFailedSaveKeepsOld(
      "ShiftingMultiplicity",
      [](const std::string& p) { ShiftingMultiplicity::create(100, 0.01, 4).save_file(p); },
      [&](const std::string& p) { ShiftingMultiplicity::create(100000, 0.01, 4).save_file(p); });
}

// Issue 45: the named temporary (the path of file systems without O_TMPFILE) was reached only as
// root in a private mount namespace; SIMDBLOOM_SAVE_NAMED_TEMPORARY=1 takes it without root.
TEST_CASE("save: through a named temporary, a failed save leaves nothing behind") {
  REQUIRE(::setenv("SIMDBLOOM_SAVE_NAMED_TEMPORARY", "1", 1) == 0);
  TempDir dir;
  const std::string path = dir / "f.sbf";
  Filter::create(100, 0.01).save_file(path);
  const std::string before = ReadFile(path);
  // The save goes through a name beside the target (seen while it writes), removed when the
  // write throws.
  std::vector<std::string> during;
  try {
    detail::WriteFileAtomically(path, "test", [&](std::ostream& out) {
      out.write("partial", 7);
      out.flush();
      during = dir.Names();
      throw Error(ErrorCode::kIo, "the writer failed");
    });
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "the writer failed");
  }
  REQUIRE(during.size() == 2);
  CHECK(during[0].rfind(".f.sbf.tmp.", 0) == 0);
  CHECK(during[1] == "f.sbf");
  CHECK(dir.Names() == std::vector<std::string>{"f.sbf"});
  CHECK(ReadFile(path) == before);
  // A file size limit mid-save, every kind of save: the old file, nothing else.
  const auto keys = test::RandomKeys(1000, 9);
  CheckFailedSaveKeepsOld(
      "Filter, named temporary",
      [](const std::string& p) { Filter::create(100, 0.01).save_file(p); },
      [&](const std::string& p) {
        Filter f = Filter::create(100000, 0.01);
        f.insert({keys.data(), keys.size()});
        f.save_file(p);
      });
  CheckFailedSaveKeepsOld(
      "CountingFilter, named temporary",
      [](const std::string& p) { CountingFilter::create(100, 0.01).save_file(p); },
      [&](const std::string& p) { CountingFilter::create(100000, 0.01).save_file(p); });
  // A successful save: the new file under its name, no temporary.
  Filter::create(1000, 0.01).save_file(path);
  CHECK(dir.Names() == std::vector<std::string>{"f.sbf"});
  CHECK(ReadFile(path) != before);
  REQUIRE(::unsetenv("SIMDBLOOM_SAVE_NAMED_TEMPORARY") == 0);
}

// The same on a full file system (ENOSPC), where the test may mount one: a 256 KiB tmpfs in a
// private mount namespace of a child process (root; reported as skipped elsewhere).
TEST_CASE("save: a full disk leaves the old file of every kind unchanged") {
  TempDir dir;
  const auto keys = test::RandomKeys(1000, 8);
  const std::string out = AsUserOrRoot([&]() -> std::string {
    if (::unshare(CLONE_NEWNS) != 0 ||
        ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount("tmpfs", (dir / "").c_str(), "tmpfs", 0, "size=256k") != 0) {
      return "skip";
    }
    std::string report;
    auto one = [&](const char* kind, const std::function<void(const std::string&)>& small,
                   const std::function<void(const std::string&)>& big) {
      const std::string path = dir / "f.sbf";
      small(path);
      const std::string before = ReadFile(path);
      std::string msg = "no error";
      try {
        big(path);
      } catch (const Error& e) {
        msg = e.what();
      }
      const bool ok = msg.find(std::strerror(ENOSPC)) != std::string::npos &&
                      ReadFile(path) == before && dir.Names() == std::vector<std::string>{"f.sbf"};
      report += std::string(kind) + (ok ? ": ok\n" : ": FAILED " + msg + "\n");
      std::remove(path.c_str());
    };
    one(
        "Filter", [](const std::string& p) { Filter::create(100, 0.01).save_file(p); },
        [&](const std::string& p) { Filter::create(1000000, 0.01).save_file(p); });
    one(
        "CountingFilter",
        [](const std::string& p) { CountingFilter::create(100, 0.01).save_file(p); },
        [&](const std::string& p) { CountingFilter::create(1000000, 0.01).save_file(p); });
    one(
        "ScalableFilter",
        [](const std::string& p) { ScalableFilter::create(100, 0.01).save_file(p); },
        [&](const std::string& p) { ScalableFilter::create(1000000, 0.01).save_file(p); });
    one(
        "SpatialFilter",
        [](const std::string& p) { SpatialFilter::create(100, 0.01, 2).save_file(p); },
        [&](const std::string& p) { SpatialFilter::create(1000000, 0.01, 2).save_file(p); });
    one(
        "ShiftingAssociation",
        [](const std::string& p) { ShiftingAssociation::create(100, 0.01).save_file(p); },
        [&](const std::string& p) { ShiftingAssociation::create(1000000, 0.01).save_file(p); });
    one(
        "ShiftingMultiplicity",
        [](const std::string& p) { ShiftingMultiplicity::create(100, 0.01, 4).save_file(p); },
        [&](const std::string& p) { ShiftingMultiplicity::create(1000000, 0.01, 4).save_file(p); });
    ::umount((dir / "").c_str());
    return report;
  });
  if (out == "skip") {
    MESSAGE("no private mount namespace or tmpfs here: the full-disk case runs as RLIMIT_FSIZE");
    return;
  }
  CHECK(out ==
        "Filter: ok\nCountingFilter: ok\nScalableFilter: ok\nSpatialFilter: ok\n"
        "ShiftingAssociation: ok\nShiftingMultiplicity: ok\n");
}

TEST_CASE("save: a successful save replaces the file, keeps its mode and leaves nothing else") {
  TempDir dir;
  const std::string path = dir / "f.sbf";
  Filter a = Filter::create(1000, 0.01);
  a.save_file(path);  // a new file: 0666 less the umask
  REQUIRE(::chmod(path.c_str(), 0640) == 0);
  Filter b = Filter::create(1000, 0.01, Layout::kBlock512, 99);
  b.insert(uint64_t{42});
  b.save_file(path);
  CHECK(Bytes(Filter::load_file(path)) == Bytes(b));
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);
  CHECK(dir.Names() == std::vector<std::string>{"f.sbf"});
  // A directory is refused, naming it; nothing is created.
  try {
    b.save_file(dir / "");
    FAIL("saving onto a directory did not fail");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kIo);
  }
  CHECK(dir.Names() == std::vector<std::string>{"f.sbf"});
}

std::string SaveOutcome(const Filter& f, const std::string& path) {
  try {
    f.save_file(path);
    return "saved";
  } catch (const Error& e) {
    return e.what();
  }
}

// What a replacement needs and keeps: write permission on the file (a read-only file stays, as a
// rewrite would fail), a directory it can create in (write-only, mode 0300, is enough), the old
// owner where the caller may set it; names up to NAME_MAX.
TEST_CASE("save: permissions, owners and long names") {
  TempDir dir;
  REQUIRE(::chmod((dir / "").c_str(), 0777) == 0);
  Filter f = Filter::create(1000, 0.01);
  f.insert(uint64_t{5});
  // A read-only file (owned by root when the tests run as root) is not replaced.
  const std::string ro = dir / "ro.sbf";
  Filter::create(100, 0.01).save_file(ro);
  REQUIRE(::chmod(ro.c_str(), 0444) == 0);
  const std::string before = ReadFile(ro);
  const std::string got = AsUser([&] { return SaveOutcome(f, ro); });
  CHECK(got.find("cannot write " + ro + ": " + std::strerror(EACCES)) != std::string::npos);
  CHECK(ReadFile(ro) == before);
  // A write-only directory: saves work (the directory is opened with O_PATH).
  const std::string wx = dir / "wx";
  REQUIRE(::mkdir(wx.c_str(), 0777) == 0);
  if (::geteuid() == 0) REQUIRE(::chown(wx.c_str(), 65534, 65534) == 0);
  REQUIRE(::chmod(wx.c_str(), 0300) == 0);
  CHECK(AsUser([&] { return SaveOutcome(f, wx + "/f.sbf") + SaveOutcome(f, wx + "/f.sbf"); }) ==
        "savedsaved");
  REQUIRE(::chmod(wx.c_str(), 0700) == 0);
  CHECK(Bytes(Filter::load_file(wx + "/f.sbf")) == Bytes(f));
  std::remove((wx + "/f.sbf").c_str());
  ::rmdir(wx.c_str());
  // The owner stays where the caller may keep it (root replacing a service's file).
  if (::geteuid() == 0) {
    const std::string owned = dir / "owned.sbf";
    Filter::create(100, 0.01).save_file(owned);
    REQUIRE(::chown(owned.c_str(), 65534, 65534) == 0);
    REQUIRE(::chmod(owned.c_str(), 0600) == 0);
    f.save_file(owned);
    struct stat st;
    REQUIRE(::stat(owned.c_str(), &st) == 0);
    CHECK(st.st_uid == 65534);
    CHECK(st.st_gid == 65534);
    CHECK((st.st_mode & 07777) == 0600);
    CHECK(Bytes(Filter::load_file(owned)) == Bytes(f));
  }
  // A name of 250 bytes is created and replaced (its temporary name fits NAME_MAX too).
  const std::string long_name = dir / std::string(250, 'n');
  Filter::create(100, 0.01).save_file(long_name);
  f.save_file(long_name);
  CHECK(Bytes(Filter::load_file(long_name)) == Bytes(f));
}

TEST_CASE("save: a symbolic link is followed, the link kept") {
  TempDir dir;
  const std::string target = dir / "target.sbf", link = dir / "link.sbf";
  Filter::create(1000, 0.01).save_file(target);
  REQUIRE(::symlink("target.sbf", link.c_str()) == 0);
  Filter b = Filter::create(1000, 0.01);
  b.insert(uint64_t{7});
  b.save_file(link);
  struct stat st;
  REQUIRE(::lstat(link.c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
  CHECK(Bytes(Filter::load_file(target)) == Bytes(b));
  CHECK(dir.Names() == std::vector<std::string>{"link.sbf", "target.sbf"});
}

// A service that maps its filter file and saves the filter back onto it: the rename gives the
// path a new inode, so the mapping keeps the old bytes (an in-place rewrite truncated the mapped
// file: SIGBUS).
TEST_CASE("save: a view saved onto the file it maps") {
  TempDir dir;
  const std::string path = dir / "f.sbf";
  const auto keys = test::RandomKeys(5000, 11);
  Filter f = Filter::create(5000, 0.01);
  f.insert({keys.data(), keys.size()});
  f.save_file(path);
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  struct stat st;
  REQUIRE(::fstat(fd, &st) == 0);
  const size_t size = static_cast<size_t>(st.st_size);
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  REQUIRE(map != MAP_FAILED);
  {
    const Filter view = Filter::view(static_cast<const uint8_t*>(map), size);
    view.save_file(path);
    for (uint64_t k : keys) REQUIRE(view.contains(k));
    CHECK(Bytes(Filter::load_file(path)) == Bytes(f));
  }
  ::munmap(map, size);
  CHECK(dir.Names() == std::vector<std::string>{"f.sbf"});
}

// A FIFO is streamed into, not replaced (as `-o /dev/stdout`).
TEST_CASE("save: a FIFO is written, not replaced") {
  TempDir dir;
  const std::string path = dir / "pipe";
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  // Our own read end, so the save's open does not wait; the filter fits the pipe's buffer.
  const int rd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(rd >= 0);
  Filter f = Filter::with_bits(4096, 4);
  f.insert(uint64_t{5});
  f.save_file(path);
  std::string got(f.serialized_size() + 1, '\0');
  const ssize_t n = ::read(rd, &got[0], got.size());
  ::close(rd);
  REQUIRE(n == static_cast<ssize_t>(f.serialized_size()));
  got.resize(static_cast<size_t>(n));
  CHECK(Bytes(Filter::load(reinterpret_cast<const uint8_t*>(got.data()), got.size())) == Bytes(f));
  struct stat st;
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
}

// Every kind's bulk outputs are range-checked before anything is written, as Filter's are: an
// output whose end passes the end of the address space is kInvalidArgument, never a crash.
TEST_CASE("save: bulk outputs of every kind past the address space are refused") {
  const uint64_t keys[3] = {1, 2, 3};
  auto* end8 = reinterpret_cast<uint8_t*>(UINTPTR_MAX - 1);  // 2 bytes before the end
  auto* end16 = reinterpret_cast<uint16_t*>(UINTPTR_MAX - 3);
  auto* end32 = reinterpret_cast<uint32_t*>(UINTPTR_MAX - 7);
  const auto code = [](auto&& fn) { return test::CodeOf(fn); };
  const auto bad = ErrorCode::kInvalidArgument;
  CountingFilter c = CountingFilter::create(100, 0.01);
  CHECK(code([&] { c.contains(Keys(keys, 3), end8); }) == bad);
  CHECK(code([&] { c.count(Keys(keys, 3), end8); }) == bad);
  CHECK(code([&] { c.select(Keys(keys, 3), end32); }) == bad);
  CHECK(code([&] { c.insert(Keys(keys, 3), end8); }) == bad);
  CHECK(c.size() == 0);  // nothing inserted
  ScalableFilter sc = ScalableFilter::create(2, 0.01);
  const auto many = test::RandomKeys(100, 3);
  sc.insert({many.data(), many.size()});  // several stages
  REQUIRE(sc.stages() > 1);
  CHECK(code([&] { sc.contains({keys, 3}, end8); }) == bad);
  CHECK(code([&] { sc.select(Keys(keys, 3), end32); }) == bad);
  SpatialFilter sp = SpatialFilter::create(100, 0.01, 2);
  CHECK(code([&] { sp.classify(Keys(keys, 3), end16); }) == bad);
  ShiftingAssociation a = ShiftingAssociation::create(100, 0.01);
  CHECK(code([&] { a.query(Span<const uint64_t>(keys, 3), end8); }) == bad);
  ShiftingMultiplicity m = ShiftingMultiplicity::create(100, 0.01, 4);
  CHECK(code([&] { m.count(Span<const uint64_t>(keys, 3), end32); }) == bad);
}

// Moved-from objects: every call with keys throws, single or bulk (a query answering "absent"
// would be a silent false negative), and so does merging with one.
TEST_CASE("save: moved-from filters throw on every key call") {
  const auto moved_msg = [](auto&& fn) { return test::MessageOf(ErrorCode::kInvalidArgument, fn); };
  const uint64_t key = 3;
  uint8_t out[1];
  {
    Filter a = Filter::create(100, 0.01);
    Filter b = std::move(a);
    CHECK(moved_msg([&] { (void)a.contains(key); }) == "contains: the filter was moved from");
    CHECK(moved_msg([&] { (void)a.contains(std::string_view("k")); }).find("moved from") !=
          std::string::npos);
    CHECK(moved_msg([&] { a.contains({&key, 1}, out); }).find("moved from") != std::string::npos);
    CHECK(moved_msg([&] { a.insert(key); }).find("moved from") != std::string::npos);
    CHECK(moved_msg([&] { b.merge(a); }) == "merge: the other filter was moved from");
    CHECK(moved_msg([&] { a.merge(b); }).find("moved from") != std::string::npos);
    a.prefetch(key);  // does nothing
  }
  {
    CountingFilter a = CountingFilter::create(100, 0.01);
    CountingFilter b = std::move(a);
    CHECK(moved_msg([&] { (void)a.contains(key); }).find("moved from") != std::string::npos);
    CHECK(moved_msg([&] { (void)a.count(key); }).find("moved from") != std::string::npos);
    CHECK(moved_msg([&] { a.contains(Keys(&key, 1), out); }).find("moved from") !=
          std::string::npos);
  }
  {
    ScalableFilter a = ScalableFilter::create(100, 0.01);
    ScalableFilter b = std::move(a);
    CHECK(moved_msg([&] { (void)a.contains(key); }).find("moved from") != std::string::npos);
    CHECK(moved_msg([&] { a.contains({&key, 1}, out); }).find("moved from") != std::string::npos);
    CHECK(moved_msg([&] { b.merge(a); }).find("moved from") != std::string::npos);
  }
  {
    ShiftingAssociation a = ShiftingAssociation::create(100, 0.01);
    ShiftingAssociation b = std::move(a);
    CHECK(moved_msg([&] { (void)a.query(key); }).find("moved from") != std::string::npos);
    CHECK(moved_msg([&] { a.query(Span<const uint64_t>(&key, 1), out); }).find("moved from") !=
          std::string::npos);
    ShiftingMultiplicity x = ShiftingMultiplicity::create(100, 0.01, 4);
    ShiftingMultiplicity y = std::move(x);
    uint32_t c[1];
    CHECK(moved_msg([&] { (void)x.count(key); }).find("moved from") != std::string::npos);
    CHECK(moved_msg([&] { x.count(Span<const uint64_t>(&key, 1), c); }).find("moved from") !=
          std::string::npos);
  }
}

}  // namespace
}  // namespace simdbloom
