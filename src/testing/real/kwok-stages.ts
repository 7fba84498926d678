// The pod lifecycle kwok plays on the real test bed (data only, exported by tsop/testing so a test
// can extend it through the kwokPodStages option).

/** Name of the real test bed's fake Node, which kwok manages. */
export const FAKE_NODE = "kwok-node-0";

const stage = (name: string, matchExpressions: string, next: string) => `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: ${name}
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
${matchExpressions}
  next:
${next}`;

/** The pod lifecycle kwok plays (kwok's own "fast" stages: no delays). */
export const DEFAULT_POD_STAGES: string[] = [
  stage(
    "pod-ready",
    `    - {key: .metadata.deletionTimestamp, operator: DoesNotExist}
    - {key: .status.podIP, operator: DoesNotExist}`,
    `    statusTemplate: |
      {{ $now := Now }}
      conditions:
      {{ range list "Initialized" "Ready" "ContainersReady" "PodScheduled" }}
      - {type: {{ . }}, status: "True", lastTransitionTime: {{ $now | Quote }}}
      {{ end }}
      containerStatuses:
      {{ range .spec.containers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        ready: true
        started: true
        restartCount: 0
        state: {running: {startedAt: {{ $now | Quote }}}}
      {{ end }}
      initContainerStatuses:
      {{ range .spec.initContainers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        ready: true
        restartCount: 0
        state: {terminated: {exitCode: 0, reason: Completed, startedAt: {{ $now | Quote }}, finishedAt: {{ $now | Quote }}}}
      {{ end }}
      hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
      podIP: {{ PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) | Quote }}
      phase: Running
      startTime: {{ $now | Quote }}`,
  ),
  stage(
    "pod-complete",
    `    - {key: .metadata.deletionTimestamp, operator: DoesNotExist}
    - {key: .status.phase, operator: In, values: [Running]}
    - {key: '.metadata.ownerReferences.[].kind', operator: In, values: [Job]}`,
    `    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - {type: Ready, status: "False", reason: PodCompleted, lastTransitionTime: {{ $now | Quote }}}
      - {type: ContainersReady, status: "False", reason: PodCompleted, lastTransitionTime: {{ $now | Quote }}}
      containerStatuses:
      {{ range .spec.containers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        ready: false
        started: false
        restartCount: 0
        state: {terminated: {exitCode: 0, reason: Completed, startedAt: {{ $now | Quote }}, finishedAt: {{ $now | Quote }}}}
      {{ end }}
      phase: Succeeded`,
  ),
  stage(
    "pod-delete",
    "    - {key: .metadata.deletionTimestamp, operator: Exists}",
    `    finalizers:
      empty: true
    delete: true`,
  ),
];
