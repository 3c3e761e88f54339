// DCE through the pass-test harness: the dead Add of the seed model goes, results stay.
#include "PassTestUtils.h"

using namespace ember;
using namespace ember::test;

namespace {

const char *kDeadBranch = R"(
ir_version: 8
opset_import { domain: "" version: 13 }
graph {
  name: "g"
  node { name: "live" op_type: "Relu" input: "x" output: "y" }
  node { name: "dead" op_type: "Sigmoid" input: "x" output: "unused" }
  input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 2 } dim { dim_value: 3 } } } } }
  output { name: "y" type { tensor_type { elem_type: 1 shape { dim { dim_value: 2 } dim { dim_value: 3 } } } } }
}
)";

TEST(DCEPass, RemovesTheDeadBranch) {
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(kDeadBranch, {"dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["Sigmoid"], 0);
  EXPECT_EQ(counts["Relu"], 1);
}

} // namespace
