// The base CSV: first run without a terminal lists every missing field; flags (or tsop.bundle.yaml)
// create it; prompts fill it on a TTY; later runs keep the user's edits.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, test } from "vitest";
import { type Prompter, bundle } from "../../src/bundle/index.js";
import type { PromptQuestion } from "../../src/bundle/base.js";
import { MemoryReporter } from "../../src/common/reporter.js";
import { testdir } from "../support/testdir.js";
import { BASE_FLAGS, CRD, DEPLOYMENT, miniProject, readYaml, tsop } from "./helpers.js";

const BASE = "config/manifests/bases/demo-operator.clusterserviceversion.yaml";
const project = () =>
  testdir(
    miniProject({
      "crd.yaml": CRD,
      "deployment.yaml": DEPLOYMENT("demo-operator-controller-manager", "demo-sa"),
    }),
  );

describe("base CSV", () => {
  test("first run without a terminal fails with exit 2, lists every missing field and writes nothing", async () => {
    const dir = await project();
    const run = await tsop(dir, ["bundle", "--skip-generate", "--version", "0.1.0"]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      `cannot create ${BASE}: no terminal to ask on, and these fields have no value:`,
    );
    expect(run.stderr).toContain(
      '- description: --description <value>, or "description:" in tsop.bundle.yaml',
    );
    expect(run.stderr).toContain("- providerName: --provider-name <value>");
    expect(run.stderr).toContain("- maintainers: --maintainers <value>");
    await expect(readFile(join(dir, BASE), "utf8")).rejects.toThrow();
    await expect(readFile(join(dir, "bundle.Dockerfile"), "utf8")).rejects.toThrow();
  });

  test("a flags-only run creates the base and the bundle", async () => {
    const dir = await project();
    const run = await tsop(dir, [
      "bundle",
      "--skip-generate",
      "--version",
      "0.1.0",
      ...BASE_FLAGS,
      "--display-name",
      "Demo",
      "--keywords",
      "demo, example",
      "--provider-url",
      "https://example.com",
      "--links",
      "Docs=https://example.com/docs",
      "--min-kube-version",
      "1.28.0",
      "--install-modes",
      "OwnNamespace,AllNamespaces",
      "--capabilities",
      "seamless upgrades",
      "--maturity",
      "beta",
    ]);
    expect(run.stderr).toContain(`Created ${BASE}`);
    expect(run.exitCode).toBe(0);
    const base = await readYaml(join(dir, BASE));
    expect(base).toMatchObject({
      metadata: { name: "demo-operator.v0.0.0", annotations: { capabilities: "Seamless Upgrades" } },
      spec: {
        displayName: "Demo",
        description: "Runs demos",
        provider: { name: "Example Inc", url: "https://example.com" },
        keywords: ["demo", "example"],
        maintainers: [{ name: "Jane Doe", email: "jane@example.com" }],
        links: [{ name: "Docs", url: "https://example.com/docs" }],
        minKubeVersion: "1.28.0",
        maturity: "beta",
        installModes: [
          { type: "OwnNamespace", supported: true },
          { type: "SingleNamespace", supported: false },
          { type: "MultiNamespace", supported: false },
          { type: "AllNamespaces", supported: true },
        ],
        customresourcedefinitions: {
          owned: [
            {
              name: "demos.example.com",
              version: "v1",
              kind: "Demo",
              displayName: "Demo",
              description: "Demo is a demo.",
            },
          ],
        },
      },
    });
    const csv = await readYaml(join(dir, "bundle/manifests/demo-operator.clusterserviceversion.yaml"));
    expect(csv).toMatchObject({
      metadata: { name: "demo-operator.v0.1.0" },
      spec: { version: "0.1.0", displayName: "Demo" },
    });
  });

  test("bad field values are usage errors naming the flag", async () => {
    const dir = await project();
    const run = await tsop(dir, [
      "bundle",
      "--skip-generate",
      ...BASE_FLAGS.slice(0, 4),
      "--maintainers",
      "Jane <not-an-email>",
    ]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      '--maintainers: maintainer "Jane <not-an-email>" must be "Name <email>" or "name:email"',
    );
    const mkv = await tsop(dir, ["bundle", "--skip-generate", ...BASE_FLAGS, "--min-kube-version", "1.28"]);
    expect(mkv.exitCode).toBe(2);
    expect(mkv.stderr).toContain(
      '--min-kube-version: minKubeVersion "1.28" must be a full version such as 1.28.0',
    );
  });

  test("tsop.bundle.yaml supplies fields and options", async () => {
    const dir = await project();
    await writeFile(
      join(dir, "tsop.bundle.yaml"),
      [
        "description: From the config",
        "providerName: Config Co",
        "maintainers:",
        "- {name: Ops, email: ops@example.com}",
        "channels: [stable, fast]",
        "defaultChannel: stable",
        "version: 1.2.3",
        "features: {disconnected: true, fips-compliant: false}",
        "",
      ].join("\n"),
    );
    const run = await tsop(dir, ["bundle", "--skip-generate"]);
    expect(run.exitCode).toBe(0);
    const csv = await readYaml(join(dir, "bundle/manifests/demo-operator.clusterserviceversion.yaml"));
    expect(csv).toMatchObject({
      metadata: {
        name: "demo-operator.v1.2.3",
        annotations: {
          "features.operators.openshift.io/disconnected": "true",
          "features.operators.openshift.io/fips-compliant": "false",
          "operators.openshift.io/infrastructure-features": '["disconnected"]',
        },
      },
      spec: { description: "From the config", provider: { name: "Config Co" } },
    });
    const annotations = await readFile(join(dir, "bundle/metadata/annotations.yaml"), "utf8");
    expect(annotations).toContain("operators.operatorframework.io.bundle.channels.v1: stable,fast\n");
    expect(annotations).toContain("operators.operatorframework.io.bundle.channel.default.v1: stable\n");

    await writeFile(join(dir, "tsop.bundle.yaml"), "descripton: typo\n");
    const bad = await tsop(dir, ["bundle", "--skip-generate"]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain("tsop.bundle.yaml: unknown bundle config key(s): descripton");
  });

  test("reruns keep the user's edits (and comments); an explicit flag changes only its field", async () => {
    const dir = await project();
    expect((await tsop(dir, ["bundle", "--skip-generate", ...BASE_FLAGS])).exitCode).toBe(0);
    const path = join(dir, BASE);
    const edited = (await readFile(path, "utf8"))
      .replace("description: Runs demos", "# written by hand\n  description: Hand-written description")
      .replace("spec:\n", "spec:\n  minKubeVersion: 1.27.0\n");
    await writeFile(path, edited);
    const rerun = await tsop(dir, ["bundle", "--skip-generate"]);
    expect(rerun.exitCode).toBe(0);
    expect(await readFile(path, "utf8")).toBe(edited);
    const csv = await readYaml(join(dir, "bundle/manifests/demo-operator.clusterserviceversion.yaml"));
    expect(csv).toMatchObject({
      spec: { description: "Hand-written description", minKubeVersion: "1.27.0" },
    });

    const flagged = await tsop(dir, ["bundle", "--skip-generate", "--provider-name", "New Owner"]);
    expect(flagged.exitCode).toBe(0);
    expect(flagged.stderr).toContain(`Updated ${BASE} (providerName)`);
    const after = await readFile(path, "utf8");
    expect(after).toContain("# written by hand");
    expect(after).toContain("description: Hand-written description");
    expect(after).toContain("name: New Owner");

    const interactive = await tsop(dir, ["bundle", "--skip-generate", "--interactive"]);
    expect(interactive.exitCode).toBe(2);
    expect(interactive.stderr).toContain("--interactive needs a terminal to ask questions on");
  });

  test("on a terminal, missing fields are asked for; invalid answers are asked again", async () => {
    const dir = await project();
    const asked: PromptQuestion[] = [];
    const answers: Record<string, string[]> = {
      "Description of the operator": ["Prompted description"],
      "Provider's name (company or person shipping the operator)": ["Prompt Co"],
      'Maintainers, comma-separated ("Jane Doe <jane@example.com>, ...")': [
        "bob <nope>",
        "Bob <bob@example.com>, amy:amy@example.com",
      ],
      "Minimum Kubernetes version (e.g. 1.28.0; optional)": ["1.29"],
    };
    const rejected: string[] = [];
    const prompter: Prompter = {
      async input(question) {
        asked.push(question);
        const queue = answers[question.message] ?? [];
        for (let attempt = 0; attempt < 3; attempt++) {
          const answer = queue.shift() ?? question.default ?? "";
          const verdict = await question.validate(answer);
          if (verdict === true) return answer;
          rejected.push(verdict);
          if (question.message.startsWith("Minimum")) queue.push("1.29.0");
        }
        throw new Error(`no valid answer for ${question.message}`);
      },
    };
    const reporter = new MemoryReporter();
    const result = await bundle(
      { cwd: dir, skipGenerate: true, version: "0.0.1", tty: true, prompter, yes: false },
      reporter,
    );
    expect(result.base.status).toBe("created");
    expect(asked.map((q) => q.message)).toHaveLength(12);
    expect(asked.find((q) => q.message === "Display name for the operator")?.default).toBe("Demo Operator");
    expect(rejected).toEqual([
      'maintainer "bob <nope>" must be "Name <email>" or "name:email" with a valid email address',
      'minKubeVersion "1.29" must be a full version such as 1.28.0',
    ]);
    const base = parse(await readFile(join(dir, BASE), "utf8"));
    expect(base.spec).toMatchObject({
      displayName: "Demo Operator",
      description: "Prompted description",
      provider: { name: "Prompt Co" },
      maintainers: [
        { name: "Bob", email: "bob@example.com" },
        { name: "amy", email: "amy@example.com" },
      ],
      minKubeVersion: "1.29.0",
      keywords: ["demo-operator"],
    });

    // --yes asks only for what has no default; --interactive asks again on an existing base.
    const dir2 = await project();
    asked.length = 0;
    answers["Description of the operator"] = ["Second"];
    answers["Provider's name (company or person shipping the operator)"] = ["Prompt Co"];
    answers['Maintainers, comma-separated ("Jane Doe <jane@example.com>, ...")'] = [
      "Bob <bob@example.com>, amy:amy@example.com",
    ];
    await bundle({ cwd: dir2, skipGenerate: true, tty: true, prompter, yes: true }, new MemoryReporter());
    expect(asked.map((q) => q.message)).toEqual([
      "Description of the operator",
      "Provider's name (company or person shipping the operator)",
      'Maintainers, comma-separated ("Jane Doe <jane@example.com>, ...")',
    ]);
    asked.length = 0;
    answers["Description of the operator"] = ["Asked again"];
    const again = await bundle(
      { cwd: dir2, skipGenerate: true, tty: true, prompter, interactive: true },
      new MemoryReporter(),
    );
    expect(again.base.status).toBe("updated");
    expect(asked).toHaveLength(12);
    expect(asked.find((q) => q.message.startsWith("Maintainers"))?.default).toBe(
      "Bob <bob@example.com>, amy <amy@example.com>",
    );
    expect(parse(await readFile(join(dir2, BASE), "utf8")).spec.description).toBe("Asked again");
  });
});
