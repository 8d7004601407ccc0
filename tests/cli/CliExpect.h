#pragma once
// What the CLI tests expect of a refusal.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "CliRunner.h"

// Exit status 2 and exactly one line on stderr, headscope-cli's, which contains `what`.
inline void expectRefused(const CliResult& r, const std::string& what) {
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_THAT(r.err, ::testing::HasSubstr("headscope-cli: "));
    EXPECT_THAT(r.err, ::testing::HasSubstr(what));
}
