{{/*
The Prometheus Operator's kinds (ServiceMonitor, PrometheusRule) are rendered when their value
asks for them. Against a cluster that does not serve the kind, the render fails saying what to
install or which value to turn off: left to itself, `helm install` would fail on the first one
with "no matches for kind", and skipping it would leave a user who asked for it with nothing.

Whether the API list is a cluster's: on install, upgrade and --dry-run=server, helm has it from the
cluster's discovery, which names each served kind (`v1/Namespace`, and
`monitoring.coreos.com/v1/ServiceMonitor`): the kind is checked then, since some clusters have only
some of the operator's CRDs. Argo CD renders with `helm template --api-versions` and the cluster's
group versions, kinds left out: it names `apiregistration.k8s.io/v1`, which every API server
serves and helm's built-in list lacks, and the group version is checked. Without a cluster (helm
template, helm lint, --dry-run=client) the list is helm's built-in one: nothing is known of the
cluster, so the object is rendered as asked (and `kubectl apply` names a missing CRD).

Call with (dict "root" $ "kind" "ServiceMonitor" "value" "serviceMonitor.enabled").
*/}}
{{- define "crondeck.requireMonitoringKind" -}}
{{- $apis := .root.Capabilities.APIVersions -}}
{{- $kindsListed := $apis.Has "v1/Namespace" -}}
{{- $fromCluster := or $kindsListed ($apis.Has "apiregistration.k8s.io/v1") -}}
{{- $needed := ternary (printf "monitoring.coreos.com/v1/%s" .kind) "monitoring.coreos.com/v1" $kindsListed -}}
{{- if and $fromCluster (not ($apis.Has $needed)) -}}
{{- fail (printf "%s=true, but this cluster does not serve %s (monitoring.coreos.com/v1): install the Prometheus Operator's CRDs first (kube-prometheus-stack, or the prometheus-operator-crds chart), or set %s=false" .value .kind .value) -}}
{{- end -}}
{{- end -}}
