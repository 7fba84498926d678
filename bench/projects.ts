// Synthetic API projects for the generation benchmarks: N kinds with nested types, written once in
// TypeScript (for `tsop generate`) and once in Go with kubebuilder markers (for controller-gen),
// type for type and validation for validation. The Go module requires only k8s.io/apimachinery
// and k8s.io/api at the versions of fixtures/crd-oracle/go, so it builds from the Go module cache
// the rig filled (GOFLAGS=-mod=mod GOPROXY=off).
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const runtime = fileURLToPath(new URL("../src/runtime/index.ts", import.meta.url));
const oracleModule = fileURLToPath(new URL("../fixtures/crd-oracle/go/", import.meta.url));

/** One kind in TypeScript: three levels of nested types, arrays, maps, enums, validation tags. */
function tsKind(i: number): string {
  const K = `Widget${i}`;
  return `import { type Condition, CustomResource, type Int32, type IntOrString, KubeObject, PrinterColumn, Rbac, Status } from "tsop";
import type { Shared } from "./shared.js";

/** Tier of ${K}. */
export type ${K}Tier = "bronze" | "silver" | "gold";

/** Third level. */
export interface ${K}Port {
  /** @minimum 1
   * @maximum 65535 */
  port: Int32;
  /** @pattern ^[a-z]+$ */
  protocol?: "tcp" | "udp";
  target?: IntOrString;
}

/** Second level. */
export interface ${K}Container {
  /** @minLength 1 */
  name: string;
  image: string;
  args?: string[];
  env?: Record<string, string>;
  /** @listType map
   * @listMapKey port */
  ports?: ${K}Port[];
}

/** ${K}Spec is the desired state. */
export interface ${K}Spec {
  /** @minimum 0
   * @default 1 */
  replicas?: Int32;
  tier: ${K}Tier;
  /** @maxItems 10 */
  containers: ${K}Container[];
  labels?: Record<string, string>;
  shared?: Shared;
  /** @immutable */
  owner?: string;
}

export interface ${K}Status {
  readyReplicas?: Int32;
  /** @listType map
   * @listMapKey type */
  conditions?: Condition[];
}

/** ${K} is a benchmark kind. */
@CustomResource({ group: "bench.tsop.dev", version: "v1", shortNames: ["w${i}"] })
@Status()
@PrinterColumn({ name: "Tier", type: "string", jsonPath: ".spec.tier" })
export class ${K} extends KubeObject<${K}Spec, ${K}Status> {}

@Rbac({ groups: ["bench.tsop.dev"], resources: ["widget${i}s", "widget${i}s/status"], verbs: ["get", "list", "watch", "update", "patch"] })
export class ${K}Reconciler {}
`;
}

const SHARED = `/** Shared across kinds. */
export interface Shared {
  /** @maxLength 63 */
  name?: string;
  /** @validation rule="self.size() < 5" message="too many" */
  tags?: Record<string, string[]>;
}
`;

/** The same kind in Go, with the kubebuilder markers that say what the TypeScript tags say. */
function goKind(i: number): string {
  const K = `Widget${i}`;
  return `package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// +kubebuilder:rbac:groups=bench.tsop.dev,resources=widget${i}s;widget${i}s/status,verbs=get;list;watch;update;patch

// Tier of ${K}.
// +kubebuilder:validation:Enum=bronze;silver;gold
type ${K}Tier string

// Third level.
type ${K}Port struct {
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 \`json:"port"\`
	// +kubebuilder:validation:Pattern=\`^[a-z]+$\`
	// +kubebuilder:validation:Enum=tcp;udp
	// +optional
	Protocol string \`json:"protocol,omitempty"\`
	// +optional
	Target *intstr.IntOrString \`json:"target,omitempty"\`
}

// Second level.
type ${K}Container struct {
	// +kubebuilder:validation:MinLength=1
	Name  string \`json:"name"\`
	Image string \`json:"image"\`
	// +optional
	Args []string \`json:"args,omitempty"\`
	// +optional
	Env map[string]string \`json:"env,omitempty"\`
	// +listType=map
	// +listMapKey=port
	// +optional
	Ports []${K}Port \`json:"ports,omitempty"\`
}

// ${K}Spec is the desired state.
type ${K}Spec struct {
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=1
	// +optional
	Replicas *int32 \`json:"replicas,omitempty"\`
	Tier     ${K}Tier \`json:"tier"\`
	// +kubebuilder:validation:MaxItems=10
	Containers []${K}Container \`json:"containers"\`
	// +optional
	Labels map[string]string \`json:"labels,omitempty"\`
	// +optional
	Shared *Shared \`json:"shared,omitempty"\`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="field is immutable"
	// +optional
	Owner string \`json:"owner,omitempty"\`
}

type ${K}Status struct {
	// +optional
	ReadyReplicas int32 \`json:"readyReplicas,omitempty"\`
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition \`json:"conditions,omitempty"\`
}

// ${K} is a benchmark kind.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=w${i}
// +kubebuilder:printcolumn:name="Tier",type="string",JSONPath=".spec.tier"
type ${K} struct {
	metav1.TypeMeta   \`json:",inline"\`
	metav1.ObjectMeta \`json:"metadata,omitempty"\`

	Spec   ${K}Spec   \`json:"spec,omitempty"\`
	Status ${K}Status \`json:"status,omitempty"\`
}

// ${K}List is a list of ${K}.
// +kubebuilder:object:root=true
type ${K}List struct {
	metav1.TypeMeta \`json:",inline"\`
	metav1.ListMeta \`json:"metadata,omitempty"\`
	Items           []${K} \`json:"items"\`
}
`;
}

const GO_SHARED = `// Package v1 holds the benchmark kinds.
// +groupName=bench.tsop.dev
package v1

// Shared across kinds.
type Shared struct {
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Name string \`json:"name,omitempty"\`
	// +kubebuilder:validation:XValidation:rule="self.size() < 5",message="too many"
	// +optional
	Tags map[string][]string \`json:"tags,omitempty"\`
}
`;

/** A TypeScript project with `kinds` kinds in api/ ("tsop" resolved to this checkout's runtime). */
export function makeTsProject(kinds: number): string {
  const dir = mkdtempSync(join(tmpdir(), `tsop-bench-${kinds}-`));
  mkdirSync(join(dir, "api"));
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        skipLibCheck: true,
        noEmit: true,
        paths: { tsop: [runtime] },
      },
      include: ["api"],
    }),
  );
  writeFileSync(join(dir, "api/shared.ts"), SHARED);
  for (let i = 0; i < kinds; i++) writeFileSync(join(dir, `api/widget${i}.ts`), tsKind(i));
  return dir;
}

/** The same kinds as a Go module (api/v1), for controller-gen. */
export function makeGoProject(kinds: number): string {
  const dir = mkdtempSync(join(tmpdir(), `tsop-bench-go-${kinds}-`));
  mkdirSync(join(dir, "api/v1"), { recursive: true });
  for (const file of ["go.mod", "go.sum"]) copyFileSync(join(oracleModule, file), join(dir, file));
  writeFileSync(join(dir, "api/v1/shared.go"), GO_SHARED);
  for (let i = 0; i < kinds; i++) writeFileSync(join(dir, `api/v1/widget${i}_types.go`), goKind(i));
  return dir;
}
