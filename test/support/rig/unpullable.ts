// kwok stages that model images the cluster cannot pull: a pod using one of them gets what a
// kubelet reports after a failed pull (Pending, the container waiting in ImagePullBackOff with
// kubelet's message naming the image) instead of kwok's Running. The default stages get a selector
// that leaves these pods alone, because kwok picks at random among stages that all match.
import { parse, stringify } from "yaml";

type StageDoc = {
  metadata: { name: string };
  spec: { selector: { matchExpressions: Array<Record<string, unknown>> } };
};

/** jq key: "true" when any container (init or not) uses one of `images` (exact match). */
function usesKey(images: string[]): string {
  const all = "[(.spec.initContainers // [])[].image, .spec.containers[].image]";
  return `${all} | any(. as $i | ${JSON.stringify(images)} | any(. as $u | $i == $u))`;
}

/** `stages` with pods using `images` excluded (except pod-delete), plus the ImagePullBackOff stage. */
export function withUnpullableImages(stages: string[], images: string[]): string[] {
  if (images.length === 0) return stages;
  const key = usesKey(images);
  const excluded = stages.map((text) => {
    const stage = parse(text) as StageDoc;
    if (stage.metadata.name !== "pod-delete") {
      stage.spec.selector.matchExpressions.push({ key, operator: "NotIn", values: ["true"] });
    }
    return stringify(stage);
  });
  return [...excluded, imagePullBackOffStage(key)];
}

function imagePullBackOffStage(key: string): string {
  return stringify({
    apiVersion: "kwok.x-k8s.io/v1alpha1",
    kind: "Stage",
    metadata: { name: "pod-image-pull-backoff" },
    spec: {
      resourceRef: { apiGroup: "v1", kind: "Pod" },
      selector: {
        matchExpressions: [
          { key: ".metadata.deletionTimestamp", operator: "DoesNotExist" },
          { key: ".status.podIP", operator: "DoesNotExist" },
          { key, operator: "In", values: ["true"] },
        ],
      },
      next: { statusTemplate: BACKOFF_STATUS },
    },
  });
}

// kubelet's words for a failed pull (pkg/kubelet/images): reason ImagePullBackOff, message
// `Back-off pulling image "<image>"`; the pod stays Pending with Ready=False.
const BACKOFF_STATUS = `{{ $now := Now }}
conditions:
- {type: PodScheduled, status: "True", lastTransitionTime: {{ $now | Quote }}}
- {type: Initialized, status: "True", lastTransitionTime: {{ $now | Quote }}}
- {type: Ready, status: "False", reason: ContainersNotReady, lastTransitionTime: {{ $now | Quote }}}
- {type: ContainersReady, status: "False", reason: ContainersNotReady, lastTransitionTime: {{ $now | Quote }}}
containerStatuses:
{{ range .spec.containers }}
- name: {{ .name | Quote }}
  image: {{ .image | Quote }}
  imageID: ""
  ready: false
  started: false
  restartCount: 0
  state:
    waiting:
      reason: ImagePullBackOff
      message: {{ printf "Back-off pulling image %q" .image | Quote }}
{{ end }}
hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
podIP: {{ PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) | Quote }}
phase: Pending
startTime: {{ $now | Quote }}
`;
