// The controller-runtime twin of bench/runtime-twin/ts/main.ts for `npm run bench:vs-runtime`:
// one Widget kind (bench.tsop.dev/v1, spec.data → status.observed) that owns one ConfigMap per
// Widget, written the way a kubebuilder project writes it (cached client, CreateOrUpdate with a
// controller reference, Status().Update), 4 workers, leader election only with --leader-elect.
// Credentials come from KUBECONFIG, as for the TypeScript twin.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

var groupVersion = schema.GroupVersion{Group: "bench.tsop.dev", Version: "v1"}

type WidgetSpec struct {
	Data string `json:"data,omitempty"`
}

type WidgetStatus struct {
	Observed string `json:"observed,omitempty"`
}

type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec,omitempty"`
	Status            WidgetStatus `json:"status,omitempty"`
}

type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// DeepCopyObject is what controller-gen's object generator would write for these types.
func (in *Widget) DeepCopyObject() runtime.Object {
	out := new(Widget)
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return out
}

func (in *WidgetList) DeepCopyObject() runtime.Object {
	out := new(WidgetList)
	*out = *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]Widget, len(in.Items))
		for i := range in.Items {
			out.Items[i] = *in.Items[i].DeepCopyObject().(*Widget)
		}
	}
	return out
}

type WidgetReconciler struct {
	client.Client
	Scheme *runtime.Scheme
}

// reconciles counts Reconcile calls; SIGUSR2 prints the count (the benchmark's reconciles per Widget).
var reconciles atomic.Int64

func reportReconcilesOnSIGUSR2() {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGUSR2)
	go func() {
		for range signals {
			fmt.Fprintf(os.Stderr, "bench-reconciles %d\n", reconciles.Load())
		}
	}()
}

func (r *WidgetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	reconciles.Add(1)
	var widget Widget
	if err := r.Get(ctx, req.NamespacedName, &widget); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: widget.Name, Namespace: widget.Namespace}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Data = map[string]string{"data": widget.Spec.Data}
		return controllerutil.SetControllerReference(&widget, cm, r.Scheme)
	}); err != nil {
		return ctrl.Result{}, err
	}
	if widget.Status.Observed != widget.Spec.Data {
		widget.Status.Observed = widget.Spec.Data
		if err := r.Status().Update(ctx, &widget); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, nil
}

func main() {
	var leaderElect bool
	var leaderElectionNamespace string
	flag.BoolVar(&leaderElect, "leader-elect", false, "enable leader election")
	flag.StringVar(&leaderElectionNamespace, "leader-election-namespace", "", "lease namespace")
	flag.Parse()
	ctrl.SetLogger(zap.New())
	log := ctrl.Log.WithName("setup")

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		log.Error(err, "scheme")
		os.Exit(1)
	}
	scheme.AddKnownTypes(groupVersion, &Widget{}, &WidgetList{})
	metav1.AddToGroupVersion(scheme, groupVersion)

	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                        scheme,
		Metrics:                       metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:        "0",
		LeaderElection:                leaderElect,
		LeaderElectionID:              "widget-operator.bench.tsop.dev",
		LeaderElectionNamespace:       leaderElectionNamespace,
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		log.Error(err, "unable to create the manager")
		os.Exit(1)
	}
	if err := ctrl.NewControllerManagedBy(mgr).
		For(&Widget{}).
		Owns(&corev1.ConfigMap{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).
		Complete(&WidgetReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme()}); err != nil {
		log.Error(err, "unable to create the controller")
		os.Exit(1)
	}
	reportReconcilesOnSIGUSR2()
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "manager exited")
		os.Exit(1)
	}
}
