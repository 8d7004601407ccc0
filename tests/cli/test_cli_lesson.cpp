// headscope-cli lesson: one slide per step (in each format asked for) and a handout whose
// numbers are the engine's; --list; bad input is one line and exit 2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "Analysis.h"
#include "CliRunner.h"
#include "RankTable.h"
#include "lessons/Lesson.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using namespace headscope;

namespace {
int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

lessons::Lesson lessonFile(int n) {
    const std::string name = "lesson-" + std::to_string(n) + ".json";
    return lessons::parseLesson(readFile(fs::path(HEADSCOPE_RESOURCES_DIR) / "lessons" / name), name);
}
}  // namespace

TEST(Lesson, ListNamesTheSevenLessons) {
    const CliResult r = runCli({"lesson", "--list"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(lines(r.out), 7) << r.out;
    EXPECT_THAT(r.out, HasSubstr("7  How an induction head forms (8 steps)"));
    EXPECT_THAT(r.out, HasSubstr("1  One matrix or two"));
    EXPECT_THAT(r.out, HasSubstr("6  The low-rank bottleneck"));
}

TEST(Lesson, WritesOneImagePerStepAndAHandoutWithTheEnginesNumbers) {
    const TempDir dir;
    const CliResult r = runCli({"lesson", "1", "--out", dir.str(), "--format", "png,svg"});
    ASSERT_EQ(r.status, 0) << r.err;
    const lessons::Lesson lesson = lessonFile(1);
    const int steps = static_cast<int>(lesson.steps.size());
    int pngs = 0, svgs = 0;
    for (const auto& entry : fs::directory_iterator(dir.path)) {
        pngs += entry.path().extension() == ".png";
        svgs += entry.path().extension() == ".svg";
    }
    EXPECT_EQ(pngs, steps);
    EXPECT_EQ(svgs, steps);
    for (int k = 1; k <= steps; ++k) {
        const fs::path png = dir.path / ("step-" + std::to_string(k) + ".png");
        ASSERT_TRUE(fs::exists(png)) << png;
        EXPECT_GT(fs::file_size(png), 10000u) << "step " << k << " looks empty";
        const std::string head = readFile(png).substr(0, 8);
        EXPECT_EQ(head, std::string("\x89PNG\r\n\x1a\n", 8));
    }
    const std::string md = readFile(dir.path / "lesson-1.md");
    EXPECT_THAT(md, HasSubstr("# Lesson 1: One matrix or two"));
    EXPECT_EQ(static_cast<int>(std::count(md.begin(), md.end(), '!')) >= steps, true);
    // The rank quoted in step 2 is the engine's for that step's configuration.
    const auto& step = lesson.steps[1];
    const Analysis a = analyze(step.session.config, true);
    const int rank = rankTable(a).at(step.head).qk;
    EXPECT_THAT(md, HasSubstr("rank of W_QK for head 0: " + std::to_string(rank) + ", though the matrix is 64 \u00d7 64"));
    // No placeholder left unfilled, no HTML left in the handout.
    EXPECT_EQ(md.find('{'), std::string::npos);
    EXPECT_EQ(md.find("<sub>"), std::string::npos);
}

// Lesson 7's slides need a trained state: the export trains it headless with the lesson's seed
// and budgets, opens the model it became and knocks its heads out, and says what it reached.
TEST(Lesson, LessonSevenTrainsForItsSlidesAndSaysWhatItReached) {
    const TempDir dir;
    const CliResult r = runCli({"lesson", "7", "--out", dir.str()});
    ASSERT_EQ(r.status, 0) << r.err;
    for (int k = 1; k <= 8; ++k) {
        const fs::path png = dir.path / ("step-" + std::to_string(k) + ".png");
        ASSERT_TRUE(fs::exists(png)) << png;
        EXPECT_GT(fs::file_size(png), 20000u) << "step " << k << " looks empty";
    }
    const std::string md = readFile(dir.path / "lesson-7.md");
    EXPECT_THAT(md, HasSubstr("# Lesson 7: How an induction head forms"));
    EXPECT_THAT(md, HasSubstr("Reached**: step 150. The run at step 150: loss "));
    EXPECT_THAT(md, HasSubstr("Reached**: accuracy on the repeated half at least 90.0 %. The run at step "));
    EXPECT_THAT(md, HasSubstr("Reached**: head 0.0's previous-token score at least 0.30, head 1.1's induction score at least 0.50. The run at step "));
    EXPECT_EQ(md.find("Not reached"), std::string::npos) << md;
    // Both induction heads off: the loss on the repeated string rises by more than a nat.
    const std::regex knocked(R"(Knocked out\*\* heads 1\.0, 1\.1: the loss on the text goes from ([0-9.]+) to ([0-9.]+))");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(md, m, knocked)) << md;
    EXPECT_GT(std::stod(m[2]) - std::stod(m[1]), 1.0) << m[0];
}

TEST(Lesson, PdfSlidesToo) {
    const TempDir dir;
    const CliResult r = runCli({"lesson", "5", "--out", dir.str(), "--format", "pdf"});
    ASSERT_EQ(r.status, 0) << r.err;
    const int steps = static_cast<int>(lessonFile(5).steps.size());
    for (int k = 1; k <= steps; ++k) {
        const fs::path pdf = dir.path / ("step-" + std::to_string(k) + ".pdf");
        ASSERT_TRUE(fs::exists(pdf));
        EXPECT_EQ(readFile(pdf).substr(0, 5), "%PDF-");
    }
    EXPECT_THAT(readFile(dir.path / "lesson-5.md"), HasSubstr("Fully masked rows: 1; sum of their weights: 0; NaN weights: 0."));
}

TEST(Lesson, BadInputIsOneLineAndExitTwo) {
    const TempDir dir;
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"lesson", "8", "--out", dir.str()}, {"lesson", "x", "--out", dir.str()},
          {"lesson", "1"}, {"lesson"}, {"lesson", "1", "--out", dir.str(), "--format", "gif"},
          {"lesson", "--list", "2"}}) {
        const CliResult r = runCli(args);
        EXPECT_EQ(r.status, 2) << args.size();
        EXPECT_EQ(lines(r.err), 1) << r.err;
        EXPECT_THAT(r.err, HasSubstr("headscope-cli: "));
    }
    EXPECT_THAT(runCli({"lesson", "8", "--out", dir.str()}).err, HasSubstr("there is no lesson '8': choose 1 to 7"));
}
