{{/* Names ------------------------------------------------------------------------------- */}}
{{- define "crondeck.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "crondeck.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "crondeck.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "crondeck.labels" -}}
helm.sh/chart: {{ include "crondeck.chart" . }}
{{ include "crondeck.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: crondeck
{{- end -}}

{{- define "crondeck.selectorLabels" -}}
app.kubernetes.io/name: {{ include "crondeck.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "crondeck.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "crondeck.apiServiceAccountName" -}}
{{- if .Values.serviceAccount.api.create -}}
{{- default (printf "%s-api" (include "crondeck.fullname" .)) .Values.serviceAccount.api.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.api.name -}}
{{- end -}}
{{- end -}}

{{- define "crondeck.controllerServiceAccountName" -}}
{{- if .Values.serviceAccount.controller.create -}}
{{- default (printf "%s-controller" (include "crondeck.fullname" .)) .Values.serviceAccount.controller.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.controller.name -}}
{{- end -}}
{{- end -}}

{{/* The namespace whose custom resources are watched; `*` = all of them (rbac.clusterWide). */}}
{{- define "crondeck.watchNamespace" -}}
{{- if .Values.rbac.clusterWide -}}
*
{{- else -}}
{{- default .Release.Namespace .Values.watchNamespace -}}
{{- end -}}
{{- end -}}

{{/*
Who may call /api: kubernetes (the caller's own token, RBAC decides) or token (one shared token).
Missing only where an upgrade with --reuse-values took the values of a chart without it: the
previous release ran on the shared token, so the choice is the user's, not a silent switch.
*/}}
{{- define "crondeck.authMode" -}}
{{- $mode := dig "mode" "" (.Values.auth | default dict) -}}
{{- if not $mode -}}
{{- fail "auth.mode is not set: set --set auth.mode=kubernetes (each caller's own Kubernetes token, RBAC decides; docs/security.md) or --set auth.mode=token (the shared API token of earlier versions). An upgrade with --reuse-values keeps the values of the previous chart, which had no auth.mode: upgrade with --reset-then-reuse-values or -f your values file" -}}
{{- end -}}
{{- $mode -}}
{{- end -}}

{{- define "crondeck.sharedToken" -}}
{{- if eq (include "crondeck.authMode" .) "token" -}}true{{- end -}}
{{- end -}}

{{/*
What the -view user role grants, which the -edit one grants too. The dashboard's reads about no
namespace (the scheduler's status, schedules described) are non-resource URLs under /crondeck
(docs/security.md): they take effect only where the role is bound cluster-wide, as RBAC ignores
non-resource URLs in a RoleBinding. Pause, resume and the mailbox are no one's by default.
*/}}
{{- define "crondeck.userViewRules" -}}
- apiGroups: ["crondeck.dev"]
  resources: ["scheduledjobs", "scheduledjobs/status", "alertconfigs", "alertconfigs/status", "cronjobwatches", "cronjobwatches/status"]
  verbs: ["get", "list", "watch"]
- nonResourceURLs: ["/crondeck/api/scheduler/status", "/crondeck/api/cron/*"]
  verbs: ["get"]
{{- end -}}

{{/* Secrets: names and keys, generated ones unless the user gave their own -------------------- */}}
{{- define "crondeck.apiTokenSecretName" -}}
{{- default (printf "%s-api-token" (include "crondeck.fullname" .)) .Values.apiToken.existingSecret -}}
{{- end -}}

{{- define "crondeck.reportSecretName" -}}
{{- default (printf "%s-report-secret" (include "crondeck.fullname" .)) .Values.reportSecret.existingSecret -}}
{{- end -}}

{{- define "crondeck.postgresqlName" -}}
{{- printf "%s-postgresql" (include "crondeck.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "crondeck.databaseSecretName" -}}
{{- if and .Values.postgresql.enabled .Values.database.existingSecret -}}
{{- fail "database: postgresql.enabled is true and database.existingSecret is set; choose one: set postgresql.enabled=false to use your own database, or leave database.existingSecret empty for the bundled one" -}}
{{- else if .Values.database.existingSecret -}}
{{- .Values.database.existingSecret -}}
{{- else if .Values.postgresql.enabled -}}
{{- include "crondeck.postgresqlName" . -}}
{{- else -}}
{{- fail "database: no database configured. Set database.existingSecret to the name of a Secret holding DATABASE_URL (postgres://user:password@host:5432/db), or set postgresql.enabled=true for a bundled single-instance PostgreSQL (for trying Crondeck out)" -}}
{{- end -}}
{{- end -}}

{{/*
Every Secret of the release's namespace that Crondeck runs on, separated by commas: the controller
refuses a ScheduledJob of that namespace whose env names one (its pods would read the database's
URL, the report secret or the API token). The API token's in kubernetes mode too: one generated in
token mode stays in the namespace (kept) and would open the API again if the mode were switched back.
*/}}
{{- define "crondeck.ownSecretNames" -}}
{{- $names := list (include "crondeck.databaseSecretName" .) (include "crondeck.reportSecretName" .) (include "crondeck.apiTokenSecretName" .) -}}
{{- with .Values.smtp.existingSecret }}{{ $names = append $names . }}{{ end -}}
{{- join "," ($names | uniq) -}}
{{- end -}}

{{- define "crondeck.databaseSecretKey" -}}
{{- if .Values.database.existingSecret -}}
{{- .Values.database.existingSecretKey -}}
{{- else -}}
DATABASE_URL
{{- end -}}
{{- end -}}

{{/*
A value kept across upgrades: the existing Secret's key when the Secret exists in the cluster
(helm lookup; empty under `helm template`), else a fresh random one. Base64-encoded.
Arguments: (list $ secretName key length)
*/}}
{{- define "crondeck.keptRandom" -}}
{{- $root := index . 0 -}}
{{- $name := index . 1 -}}
{{- $key := index . 2 -}}
{{- $length := index . 3 -}}
{{- $existing := lookup "v1" "Secret" $root.Release.Namespace $name -}}
{{- if and $existing $existing.data (hasKey $existing.data $key) -}}
{{- index $existing.data $key -}}
{{- else -}}
{{- randAlphaNum $length | b64enc -}}
{{- end -}}
{{- end -}}

{{/* Volumes for a read-only root file system: a writable /tmp. */}}
{{- define "crondeck.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: 256Mi
{{- end -}}

{{- define "crondeck.tmpVolumeMount" -}}
- name: tmp
  mountPath: /tmp
{{- end -}}

{{- define "crondeck.smtpEnabled" -}}
{{- if .Values.smtp.host -}}true{{- end -}}
{{- end -}}

{{/* Environment shared by the API and the controller. */}}
{{- define "crondeck.commonEnv" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "crondeck.databaseSecretName" . }}
      key: {{ include "crondeck.databaseSecretKey" . }}
- name: SERVICE_REPORT_SECRET
  valueFrom:
    secretKeyRef:
      name: {{ include "crondeck.reportSecretName" . }}
      key: {{ .Values.reportSecret.existingSecretKey }}
- name: CRONDECK_WATCH_NAMESPACE
  value: {{ include "crondeck.watchNamespace" . | quote }}
- name: SERVICE_LOG_LEVEL
  value: {{ .Values.settings.logLevel | quote }}
{{- /*
The controller reads these as the API does: the default time zone of the CronJobs it renders, and
the alerts, retention and webhook rules of the runs it records.
*/}}
- name: SERVICE_TIMEZONE
  value: {{ .Values.settings.timezone | quote }}
- name: SERVICE_RETENTION_DAYS
  value: {{ .Values.settings.retentionDays | quote }}
{{- with .Values.settings.webhookDenyCidrs }}
- name: SERVICE_WEBHOOK_DENY_CIDRS
  value: {{ . | quote }}
{{- end }}
{{- if include "crondeck.smtpEnabled" . }}
- name: SERVICE_SMTP_HOST
  value: {{ .Values.smtp.host | quote }}
- name: SERVICE_SMTP_PORT
  value: {{ .Values.smtp.port | quote }}
- name: SERVICE_SMTP_SECURE
  value: {{ .Values.smtp.secure | quote }}
{{- with .Values.smtp.from }}
- name: SERVICE_SMTP_FROM
  value: {{ . | quote }}
{{- end }}
{{- with .Values.smtp.username }}
- name: SERVICE_SMTP_USERNAME
  value: {{ . | quote }}
{{- end }}
{{- if .Values.smtp.existingSecret }}
- name: SERVICE_SMTP_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .Values.smtp.existingSecret }}
      key: {{ .Values.smtp.existingSecretKey }}
{{- end }}
{{- end }}
- name: POD_NAME
  valueFrom:
    fieldRef:
      apiVersion: v1
      fieldPath: metadata.name
- name: POD_NAMESPACE
  valueFrom:
    fieldRef:
      apiVersion: v1
      fieldPath: metadata.namespace
{{- end -}}
