//===- AutotuneTest.cpp - tile-runtime-tests ------------------------------===//
//
// The autotuner without a GPU: candidates' text, keys, the environment.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

TEST(Autotune, WithoutAGpuIsAClearError) {
  // No candidates, and no GPU (the tests run where there may be none).
  std::vector<TuneCandidate> none;
  Expected<TuneResult> result = autotune(
      "kernel k(): pass", "k.tile", CompileOptions(), none, "key",
      [](const Kernel &, const TuneCandidate &, Stream) { return Status(); });
  // (No candidates means the kernel's @tune, read from its compiled form:
  // the missing GPU is what is said.)
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message().rfind("autotune: ", 0), 0u)
      << result.status().message();
  TuneCandidate c;
  c.constants = {{"TILE_M", "128"}, {"TILE_N", "64"}};
  c.options.numStages = 2;
  EXPECT_EQ(c.describe(), "TILE_M=128,TILE_N=64,num_stages=2");
  c.options.loopSplit = false;
  EXPECT_EQ(c.describe(), "TILE_M=128,TILE_N=64,num_stages=2,loop_split=off");
  c.options.loopSplit.reset();
  c.options.persistent = true;
  c.options.tileStages = 1;
  c.options.tileRefillAfterRead = true;
  c.options.rescaleInTrip = true;
  EXPECT_EQ(c.describe(), "TILE_M=128,TILE_N=64,num_stages=2,persistent=on,"
                          "tile_stages=1,tile_refill_after_read=on,"
                          "rescale_in_trip=on");
  // describe() and parse() round-trip; names that are options set them,
  // the rest are constants.
  Expected<TuneCandidate> parsed = TuneCandidate::parse(c.describe());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->constants, c.constants);
  EXPECT_TRUE(parsed->options == c.options);
  EXPECT_EQ(parsed->describe(), c.describe());
  Expected<TuneCandidate> bad = TuneCandidate::parse("TILE_M=64,cluster=3");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "tune candidate 'TILE_M=64,cluster=3': cluster must be a power of "
            "two from 1 to 16, got 3");
}

TEST(Autotune, DisabledByTheEnvironment) {
  const char *saved = std::getenv("TILEC_AUTOTUNE");
  std::string keep = saved ? saved : "";
  for (const char *off : {"0", "off", "OFF", "false", "no"}) {
    setenv("TILEC_AUTOTUNE", off, 1);
    EXPECT_TRUE(autotuneDisabled()) << off;
  }
  for (const char *on : {"1", "on", ""}) {
    setenv("TILEC_AUTOTUNE", on, 1);
    EXPECT_FALSE(autotuneDisabled()) << on;
    EXPECT_FALSE(autotuneVerbose()) << on;
  }
  // Verbose tunes, and says so.
  for (const char *verbose : {"verbose", "VERBOSE"}) {
    setenv("TILEC_AUTOTUNE", verbose, 1);
    EXPECT_FALSE(autotuneDisabled()) << verbose;
    EXPECT_TRUE(autotuneVerbose()) << verbose;
  }
  if (saved)
    setenv("TILEC_AUTOTUNE", keep.c_str(), 1);
  else
    unsetenv("TILEC_AUTOTUNE");
}

TEST(Autotune, ScheduleVariants) {
  // The compiler's choice first, then not persistent at other ring depths,
  // then persistent.
  std::vector<std::string> texts;
  for (const Options &o : scheduleVariants())
    texts.push_back(o.text());
  EXPECT_EQ(texts, (std::vector<std::string>{
                       "auto_schedule=on", "persistent=off,auto_schedule=on",
                       "num_stages=2,persistent=off,auto_schedule=on",
                       "num_stages=3,persistent=off,auto_schedule=on",
                       "num_stages=4,persistent=off,auto_schedule=on",
                       "persistent=on,auto_schedule=on",
                       "num_stages=2,persistent=on,auto_schedule=on",
                       "num_stages=3,persistent=on,auto_schedule=on",
                       "persistent=on,tile_stages=1,auto_schedule=on",
                       "num_stages=2,persistent=on,rescale_in_trip=on,"
                       "auto_schedule=on",
                       "num_stages=2,persistent=on,tile_stages=1,"
                       "tile_refill_after_read=on,rescale_in_trip=on,"
                       "auto_schedule=on",
                       "persistent=on,consumer_groups=2,auto_schedule=on"}));
  // What the caller gave is not varied (nor auto_schedule, when given).
  Options given;
  given.numStages = 3;
  given.autoSchedule = false;
  texts.clear();
  for (const Options &o : scheduleVariants(given))
    texts.push_back(o.text());
  EXPECT_EQ(texts,
            (std::vector<std::string>{"", "persistent=off", "persistent=on",
                                      "persistent=on,tile_stages=1",
                                      "persistent=on,consumer_groups=2"}));
  // A given persistent: the choice and its rings of 2, 3 and 4 stages.
  for (bool persistent : {false, true}) {
    given = Options();
    given.persistent = persistent;
    texts.clear();
    for (const Options &o : scheduleVariants(given))
      texts.push_back(o.text());
    EXPECT_EQ(texts, (std::vector<std::string>{
                         "auto_schedule=on", "num_stages=2,auto_schedule=on",
                         "num_stages=3,auto_schedule=on",
                         "num_stages=4,auto_schedule=on"}));
  }
  // A given rescale_in_trip leaves out the two variants that set it; given
  // consumer groups, the one that sets them.
  given = Options();
  given.rescaleInTrip = true;
  EXPECT_EQ(scheduleVariants(given).size(), 10u);
  given = Options();
  given.consumerGroups = 1;
  EXPECT_EQ(scheduleVariants(given).size(), 11u);
  for (const Options &o : scheduleVariants(given))
    EXPECT_FALSE(o.consumerGroups) << o.text();
}

TEST(Autotune, SameKernel) {
  // Candidates that compiled to the same code, launched the same way, are
  // one kernel to time: the description's line (options that changed
  // nothing) does not count; the constants, the code and the launch shape
  // do.
  auto make = [](const char *header, const char *body, unsigned warps) {
    auto k = std::make_unique<detail::KernelImpl>();
    k->ptx = std::string(header) + "\n" + body;
    k->info.numWarps = warps;
    return k;
  };
  std::vector<std::pair<std::string, std::string>> c64 = {{"TILE", "64"}},
                                                   c128 = {{"TILE", "128"}};
  auto a = make("// tilec-kernel: {\"num_stages\":2}", ".entry k {}", 4);
  auto b = make("// tilec-kernel: {\"num_stages\":3}", ".entry k {}", 4);
  auto code = make("// tilec-kernel: {\"num_stages\":2}", ".entry k {ret;}", 4);
  auto warps = make("// tilec-kernel: {\"num_stages\":2}", ".entry k {}", 8);
  EXPECT_TRUE(detail::sameKernel(*a, c64, *b, c64));
  EXPECT_FALSE(detail::sameKernel(*a, c64, *b, c128));
  EXPECT_FALSE(detail::sameKernel(*a, c64, *code, c64));
  EXPECT_FALSE(detail::sameKernel(*a, c64, *warps, c64));
  auto persistent =
      make("// tilec-kernel: {\"num_stages\":2}", ".entry k {}", 4);
  persistent->info.persistent = true;
  EXPECT_FALSE(detail::sameKernel(*a, c64, *persistent, c64));
  auto shared = make("// tilec-kernel: {\"num_stages\":2}", ".entry k {}", 4);
  shared->info.sharedBytes = 1024;
  EXPECT_FALSE(detail::sameKernel(*a, c64, *shared, c64));
}
