// Tests for support/atomic_file.h: all-or-nothing writes and whole-file reads.
#include "support/atomic_file.h"
#include "support/error.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace chipless {
namespace {

/// A fresh directory under the system temp dir, removed (with its files) afterwards.
class AtomicFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    char pattern[] = "/tmp/chipless_atomic_XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    for (const std::string& name : list()) ::unlink((dir_ + "/" + name).c_str());
    ::rmdir(dir_.c_str());
  }
  /// Every entry in the directory except . and .., hidden ones included.
  std::vector<std::string> list() const {
    std::vector<std::string> names;
    if (DIR* d = ::opendir(dir_.c_str())) {
      while (dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name != "." && name != "..") names.push_back(name);
      }
      ::closedir(d);
    }
    return names;
  }
  std::string dir_;
};

TEST_F(AtomicFileTest, WritesAndReadsBack) {
  const std::string path = dir_ + "/out.bin";
  const std::string contents("binary\0data\n\xff", 13);
  writeFileAtomically(path, contents);
  EXPECT_EQ(readFile(path), contents);
  EXPECT_EQ(list(), std::vector<std::string>{"out.bin"}); // no temporary left behind
}

TEST_F(AtomicFileTest, WritesRawBuffers) {
  const std::string path = dir_ + "/raw.bin";
  const unsigned char bytes[] = {1, 2, 3, 0, 255};
  writeFileAtomically(path, bytes, sizeof bytes);
  EXPECT_EQ(readFile(path), std::string(reinterpret_cast<const char*>(bytes), sizeof bytes));
}

TEST_F(AtomicFileTest, WritesEmptyAndLargeFiles) {
  writeFileAtomically(dir_ + "/empty", std::string());
  EXPECT_EQ(readFile(dir_ + "/empty"), "");
  std::string large(3 * 1024 * 1024 + 17, '\0');
  for (size_t i = 0; i < large.size(); ++i) large[i] = char(i * 31 + (i >> 12));
  writeFileAtomically(dir_ + "/large", large);
  EXPECT_EQ(readFile(dir_ + "/large"), large);
}

TEST_F(AtomicFileTest, OverwritesExistingFile) {
  const std::string path = dir_ + "/out.txt";
  writeFileAtomically(path, std::string("first version, longer than the second"));
  writeFileAtomically(path, std::string("second"));
  EXPECT_EQ(readFile(path), "second");
  EXPECT_EQ(list(), std::vector<std::string>{"out.txt"});
}

TEST_F(AtomicFileTest, RelativePathInCurrentDirectory) {
  char cwd[4096];
  ASSERT_NE(::getcwd(cwd, sizeof cwd), nullptr);
  ASSERT_EQ(::chdir(dir_.c_str()), 0);
  writeFileAtomically("relative.txt", std::string("here"));
  EXPECT_EQ(readFile("relative.txt"), "here");
  ASSERT_EQ(::chdir(cwd), 0);
  EXPECT_EQ(list(), std::vector<std::string>{"relative.txt"});
}

TEST_F(AtomicFileTest, FailureIntoMissingDirectoryLeavesNothing) {
  const std::string path = dir_ + "/missing/out.bin";
  try {
    writeFileAtomically(path, std::string("data"));
    FAIL() << "expected chipless::Error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
    EXPECT_NE(message.find("No such file or directory"), std::string::npos) << message;
  }
  EXPECT_TRUE(list().empty());
}

TEST_F(AtomicFileTest, FailedRenameKeepsTargetAndRemovesTemporary) {
  // The target is a non-empty directory: rename(2) fails after the data was written.
  const std::string path = dir_ + "/target";
  ASSERT_EQ(::mkdir(path.c_str(), 0755), 0);
  writeFileAtomically(path + "/inner", std::string("x"));
  EXPECT_THROW(writeFileAtomically(path, std::string("data")), Error);
  EXPECT_EQ(list(), std::vector<std::string>{"target"});
  EXPECT_EQ(readFile(path + "/inner"), "x");
  ::unlink((path + "/inner").c_str());
  ::rmdir(path.c_str());
}

TEST_F(AtomicFileTest, RejectsDirectoryNames) {
  EXPECT_THROW(writeFileAtomically(dir_ + "/", std::string("x")), Error);
  EXPECT_THROW(writeFileAtomically("", std::string("x")), Error);
}

TEST_F(AtomicFileTest, ReadMissingFileNamesPathAndReason) {
  const std::string path = dir_ + "/nope.txt";
  try {
    readFile(path);
    FAIL() << "expected chipless::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": cannot open: No such file or directory");
  }
}

TEST_F(AtomicFileTest, ReadDirectoryFails) {
  try {
    readFile(dir_);
    FAIL() << "expected chipless::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(dir_ + ": ", 0), 0u) << e.what();
  }
}

TEST_F(AtomicFileTest, OutputSetPutsEveryFileInPlaceTogether) {
  {
    OutputSet out;
    out.add(dir_ + "/a.txt", "alpha");
    out.add(dir_ + "/sub/deeper/b.txt", "beta");
    StagedFile& c = out.stage(dir_ + "/sub/c.txt");
    c.append("gam");
    c.append("ma");
    // Nothing is visible before the commit (the folders are, to hold the staged files).
    EXPECT_THROW(readFile(dir_ + "/a.txt"), Error);
    out.commit();
  }
  EXPECT_EQ(readFile(dir_ + "/a.txt"), "alpha");
  EXPECT_EQ(readFile(dir_ + "/sub/deeper/b.txt"), "beta");
  EXPECT_EQ(readFile(dir_ + "/sub/c.txt"), "gamma");
  ::unlink((dir_ + "/sub/deeper/b.txt").c_str());
  ::unlink((dir_ + "/sub/c.txt").c_str());
  ::rmdir((dir_ + "/sub/deeper").c_str());
  ::rmdir((dir_ + "/sub").c_str());
}

TEST_F(AtomicFileTest, AnOutputSetThatFailsLeavesNothingBehind) {
  writeFileAtomically(dir_ + "/kept.txt", "old");
  writeFileAtomically(dir_ + "/file", "a file where a folder is wanted");
  const std::vector<std::string> before = list();
  try {
    OutputSet out;
    out.add(dir_ + "/kept.txt", "new");
    out.add(dir_ + "/new/folder/x.txt", "x");
    out.add(dir_ + "/file/y.txt", "cannot be written");
    out.commit();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(dir_ + "/file"), std::string::npos) << e.what();
  }
  std::vector<std::string> after = list();
  EXPECT_EQ(std::multiset<std::string>(after.begin(), after.end()),
            std::multiset<std::string>(before.begin(), before.end()));
  EXPECT_EQ(readFile(dir_ + "/kept.txt"), "old");
  // Destroyed without commit(): the same.
  {
    OutputSet out;
    out.add(dir_ + "/kept.txt", "new");
    out.add(dir_ + "/another/z.txt", "z");
  }
  after = list();
  EXPECT_EQ(std::multiset<std::string>(after.begin(), after.end()),
            std::multiset<std::string>(before.begin(), before.end()));
  EXPECT_EQ(readFile(dir_ + "/kept.txt"), "old");
}

TEST_F(AtomicFileTest, AnOutputSetRefusesTheSamePathTwice) {
  OutputSet out;
  out.add(dir_ + "/a.txt", "one");
  EXPECT_THROW(out.add(dir_ + "/a.txt", "two"), Error);
}

} // namespace
} // namespace chipless
