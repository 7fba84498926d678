// Pins the public surface of tsop/testing: the names (values and types) src/testing/index.ts
// exports, as the TypeScript checker resolves them. A refactor that moves modules around must
// leave this list as it is; a change here is a change to the package's API.
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const INDEX = fileURLToPath(new URL("../../src/testing/index.ts", import.meta.url));

function exportedNames(file: string): string[] {
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
  return checker
    .getExportsOfModule(module)
    .map((s) => s.name)
    .sort();
}

describe("tsop/testing exports", () => {
  it("are exactly the documented names", () => {
    expect(exportedNames(INDEX)).toEqual([
      "Authorizer",
      "BinaryName",
      "CONFLICT_ANNOTATION",
      "ClusterAccess",
      "DEFAULT_POD_STAGES",
      "FAKE_NODE",
      "FaultMatch",
      "FaultSpec",
      "Faults",
      "ForbidRule",
      "KObj",
      "LocalWebhookTarget",
      "NORMALISED_PATHS",
      "OPERATOR_USER",
      "OperatorIdentity",
      "PartitionOptions",
      "PerturbFailure",
      "PerturbOptions",
      "PerturbResult",
      "PerturbStep",
      "RealTestCluster",
      "RealTestClusterOptions",
      "RequestAttributes",
      "RequestRecord",
      "RunAsOperatorOptions",
      "SCENARIOS",
      "ScenarioName",
      "ScenarioResult",
      "ServingCertificate",
      "TestCluster",
      "TestClusterOptions",
      "UserInfo",
      "WorkloadOptions",
      "assertInvariants",
      "formatFailures",
      "localWebhookConfigurations",
      "perturb",
      "runAsOperator",
      "startTestCluster",
      "withLocalConversion",
      "writeServingCertificate",
    ]);
  });

  it("the built module (npm run build) carries the same value exports", async () => {
    const built = (await import(new URL("../../dist/testing/index.js", import.meta.url).href)) as object;
    expect(Object.keys(built).sort()).toEqual([
      "CONFLICT_ANNOTATION",
      "DEFAULT_POD_STAGES",
      "FAKE_NODE",
      "NORMALISED_PATHS",
      "OPERATOR_USER",
      "SCENARIOS",
      "assertInvariants",
      "formatFailures",
      "localWebhookConfigurations",
      "perturb",
      "runAsOperator",
      "startTestCluster",
      "withLocalConversion",
      "writeServingCertificate",
    ]);
  });
});
