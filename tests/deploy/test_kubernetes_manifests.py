"""The Kubernetes manifests (deploy/kubernetes) cannot rot: every command, option, environment variable,
queue and probe path they use exists in the CLI, the settings, the Celery routing table and the API; every
queue has its workers and autoscaler; workers drain before they are stopped. The kustomizations are read
here (resources exist, patches name existing objects and paths); `kubectl kustomize`, when installed,
must render the same objects."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import pytest
import yaml
from pydantic import AliasChoices

from app.cli import main as cli
from app.cli_health import BROKER_WAIT_SECONDS
from app.config import Settings
from app.main import create_app
from app.worker.celery_app import ALL_QUEUES, RUN_QUEUES

ROOT = Path(__file__).resolve().parents[2] / "deploy" / "kubernetes"
BASE = ROOT / "base"
OVERLAYS = sorted(path for path in (ROOT / "overlays").iterdir() if path.is_dir())
# The longest a run may hold a worker by default (ExecutionPolicy.timeout_seconds).
DEFAULT_RUN_TIMEOUT_SECONDS = 600
PROBES = ("livenessProbe", "readinessProbe", "startupProbe")


@dataclass
class Manifest:
    kind: str
    name: str
    body: dict[str, Any]

    @property
    def key(self) -> tuple[str, str]:
        return self.kind, self.name


def _documents(path: Path) -> list[dict[str, Any]]:
    return [document for document in yaml.safe_load_all(path.read_text()) if document]


def _pointer(document: Any, path: str) -> tuple[Any, str]:
    """The parent of a JSON pointer's target, and the last key (RFC 6901)."""
    parts = [part.replace("~1", "/").replace("~0", "~") for part in path.lstrip("/").split("/")]
    for part in parts[:-1]:
        document = document[int(part)] if isinstance(document, list) else document[part]
    return document, parts[-1]


def _apply(body: dict[str, Any], operations: list[dict[str, Any]]) -> None:
    for operation in operations:
        parent, last = _pointer(body, operation["path"])
        if operation["op"] == "replace":
            assert last in parent, f"patch replaces {operation['path']}, which does not exist"
            parent[last] = operation["value"]
        elif operation["op"] == "add":
            parent[last] = operation["value"]
        else:
            raise AssertionError(f"unexpected patch operation {operation['op']}")


def render(folder: Path) -> list[Manifest]:
    """The objects a kustomization makes: its resources (files or folders of other kustomizations), with
    its JSON patches applied. Fails when a resource or a patch target is missing."""
    kustomization = yaml.safe_load((folder / "kustomization.yaml").read_text())
    manifests: list[Manifest] = []
    for resource in kustomization.get("resources", []):
        path = (folder / resource).resolve()
        assert path.exists(), f"{folder.name}: resource {resource} does not exist"
        if path.is_dir():
            manifests += render(path)
        else:
            manifests += [Manifest(d["kind"], d["metadata"]["name"], d) for d in _documents(path)]
    keys = [m.key for m in manifests]
    assert len(keys) == len(set(keys)), f"{folder.name}: an object is defined twice"
    for patch in kustomization.get("patches", []):
        target = patch["target"]
        matches = [m for m in manifests if m.kind == target["kind"] and m.name == target["name"]]
        assert matches, f"{folder.name}: a patch targets {target}, which no resource defines"
        for manifest in matches:
            _apply(manifest.body, yaml.safe_load(patch["patch"]))
    return manifests


def _all_renders() -> Iterator[tuple[str, list[Manifest]]]:
    yield "base", render(BASE)
    for overlay in OVERLAYS:
        yield overlay.name, render(overlay)


def _pod_specs(manifests: list[Manifest]) -> Iterator[tuple[Manifest, dict[str, Any]]]:
    for manifest in manifests:
        if manifest.kind in {"Deployment", "Job"}:
            yield manifest, manifest.body["spec"]["template"]["spec"]


def _containers(manifests: list[Manifest]) -> Iterator[tuple[Manifest, dict[str, Any]]]:
    for manifest, spec in _pod_specs(manifests):
        for container in spec["containers"]:
            yield manifest, container


def _setting_names() -> set[str]:
    """Every environment variable the settings read."""
    names = set()
    for name, field in Settings.model_fields.items():
        alias = field.validation_alias
        if isinstance(alias, AliasChoices):
            names |= {choice for choice in alias.choices if isinstance(choice, str)}
        else:
            names.add(f"AUTOMATIONS_{name.upper()}")
    return names


def _worker_queues(container: dict[str, Any]) -> list[str]:
    command = container["command"]
    return command[command.index("-Q") + 1].split(",")


def _by_kind(manifests: list[Manifest], kind: str) -> dict[str, Manifest]:
    return {m.name: m for m in manifests if m.kind == kind}


@pytest.fixture(scope="module", params=["base", *(overlay.name for overlay in OVERLAYS)])
def manifests(request: pytest.FixtureRequest) -> list[Manifest]:
    return dict(_all_renders())[request.param]


class TestKustomizations:
    def test_there_is_an_example_overlay(self) -> None:
        assert [overlay.name for overlay in OVERLAYS] == ["example"]

    def test_a_missing_resource_or_patch_target_is_caught(self, tmp_path: Path) -> None:
        (tmp_path / "kustomization.yaml").write_text("resources: [gone.yaml]\n")
        with pytest.raises(AssertionError, match="does not exist"):
            render(tmp_path)
        (tmp_path / "kustomization.yaml").write_text(
            "resources: []\npatches:\n  - target: {kind: Deployment, name: nobody}\n    patch: '[]'\n"
        )
        with pytest.raises(AssertionError, match="no resource defines"):
            render(tmp_path)

    @pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
    @pytest.mark.parametrize("folder", [BASE, *OVERLAYS], ids=lambda path: path.name)
    def test_kubectl_renders_the_same_objects(self, folder: Path) -> None:
        rendered = subprocess.run(
            ["kubectl", "kustomize", str(folder)], capture_output=True, text=True, check=True, timeout=60
        ).stdout
        theirs = {(d["kind"], d["metadata"]["name"]) for d in yaml.safe_load_all(rendered) if d}
        ours = render(folder)
        assert theirs == {m.key for m in ours}
        # The patches applied the same way: compare the parts that patches change.
        by_key = {(d["kind"], d["metadata"]["name"]): d for d in yaml.safe_load_all(rendered) if d}
        for manifest in ours:
            part = "data" if manifest.kind == "ConfigMap" else "spec"
            if manifest.kind in {"ConfigMap", "ScaledObject", "HorizontalPodAutoscaler"}:
                assert by_key[manifest.key][part] == manifest.body[part], manifest.key


class TestCommands:
    def test_every_command_and_option_exists_in_the_cli(self, manifests: list[Manifest]) -> None:
        for manifest, container in _containers(manifests):
            probes = [container[p]["exec"]["command"] for p in PROBES if "exec" in container.get(p, {})]
            for argv in (container["command"], *probes):
                program, name, *args = argv
                assert program == "automations", manifest.name
                command = cli.commands.get(name)
                assert isinstance(command, click.Command), f"{manifest.name}: no command {name}"
                options = {opt for param in command.params for opt in getattr(param, "opts", [])}
                flags = [arg for arg in args if arg.startswith("-")]
                assert set(flags) <= options, (
                    f"{manifest.name}: {set(flags) - options} are not options of {name}"
                )

    def test_every_queue_is_a_celery_queue_with_exactly_one_worker_deployment(
        self, manifests: list[Manifest]
    ) -> None:
        consumed: list[str] = []
        for manifest, container in _containers(manifests):
            if container["command"][1] == "worker":
                queues = _worker_queues(container)
                assert set(queues) <= set(ALL_QUEUES), f"{manifest.name}: unknown queue in {queues}"
                consumed += queues
        assert sorted(consumed) == sorted(ALL_QUEUES), "one worker Deployment per queue, every queue served"

    def test_one_beat_and_one_migration(self, manifests: list[Manifest]) -> None:
        commands = [container["command"][1] for _, container in _containers(manifests)]
        assert commands.count("beat") == 1
        assert commands.count("migrate") == 1
        beat = next(m for m, c in _containers(manifests) if c["command"][1] == "beat")
        assert beat.body["spec"]["replicas"] == 1
        migrate = next(m for m, c in _containers(manifests) if c["command"][1] == "migrate")
        assert migrate.kind == "Job"


class TestEnvironment:
    def test_every_variable_is_a_setting(self, manifests: list[Manifest]) -> None:
        known = _setting_names()
        for manifest, container in _containers(manifests):
            names = {variable["name"] for variable in container.get("env", [])}
            assert names <= known, f"{manifest.name}: {names - known} are read by no setting"
        for config in _by_kind(manifests, "ConfigMap").values():
            assert set(config.body["data"]) <= known, f"{set(config.body['data']) - known} are not settings"

    def test_the_config_map_holds_valid_settings(self, manifests: list[Manifest], monkeypatch: Any) -> None:
        (config,) = _by_kind(manifests, "ConfigMap").values()
        for name, value in config.body["data"].items():
            monkeypatch.setenv(name, str(value))
        monkeypatch.setenv("AUTOMATIONS_SECRET_KEY", "k" * 48)
        monkeypatch.setenv("DATABASE_URL", "postgresql://pgbouncer:6432/automations")
        monkeypatch.setenv("DATABASE_DIRECT_URL", "postgresql://postgres:5432/automations")
        Settings()  # raises when a value is out of range or of the wrong type

    def test_every_env_from_and_secret_reference_names_an_existing_or_documented_object(
        self, manifests: list[Manifest]
    ) -> None:
        config_maps = set(_by_kind(manifests, "ConfigMap"))
        for manifest, container in _containers(manifests):
            for source in container.get("envFrom", []):
                assert source["configMapRef"]["name"] in config_maps, manifest.name
            for variable in container.get("env", []):
                # The one Secret is made by the operator (deploy/kubernetes/README.md lists its keys).
                assert variable["valueFrom"]["secretKeyRef"]["name"] == "automations", manifest.name

    def test_the_api_and_workers_get_what_they_need(self, manifests: list[Manifest]) -> None:
        for manifest, container in _containers(manifests):
            names = {variable["name"] for variable in container.get("env", [])}
            assert {"DATABASE_URL", "REDIS_URL", "AUTOMATIONS_SECRET_KEY"} <= names, manifest.name
            if container["command"][1] in {"api", "migrate"}:
                # LISTEN (api) and migrations go past a transaction pooler.
                assert "DATABASE_DIRECT_URL" in names, manifest.name


class TestProbesAndScaling:
    def test_api_probes_are_routes_of_the_api(self, manifests: list[Manifest]) -> None:
        routes = set(create_app(Settings()).openapi()["paths"])
        (api,) = [m for m, c in _containers(manifests) if c["command"][1] == "api"]
        container = api.body["spec"]["template"]["spec"]["containers"][0]
        assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
        assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
        for probe in PROBES:
            assert container[probe]["httpGet"]["path"] in routes
        port = container["command"][container["command"].index("--port") + 1]
        assert [p["containerPort"] for p in container["ports"]] == [int(port)]

    def test_every_worker_is_probed_through_the_broker_by_its_own_node_name(
        self, manifests: list[Manifest]
    ) -> None:
        for manifest, container in _containers(manifests):
            command = container["command"]
            if command[1] != "worker":
                continue
            probe = container["livenessProbe"]
            argv = probe["exec"]["command"]
            assert argv[:2] == ["automations", "worker-alive"], manifest.name
            assert argv[argv.index("-n") + 1] == command[command.index("-n") + 1], manifest.name
            waits = float(argv[argv.index("--timeout") + 1]) + BROKER_WAIT_SECONDS
            assert probe["timeoutSeconds"] > waits, "kubelet waits for the command's own longest wait"
            assert probe["periodSeconds"] * probe["failureThreshold"] >= 120, (
                "one slow answer restarts nothing"
            )

    def test_the_api_scales_on_cpu_and_keeps_one_pod_through_disruptions(
        self, manifests: list[Manifest]
    ) -> None:
        hpa = _by_kind(manifests, "HorizontalPodAutoscaler")["automations-api"].body["spec"]
        assert hpa["scaleTargetRef"]["name"] == "automations-api"
        assert [m["resource"]["name"] for m in hpa["metrics"]] == ["cpu"]
        assert hpa["minReplicas"] >= 2
        pdbs = _by_kind(manifests, "PodDisruptionBudget")
        assert pdbs["automations-api"].body["spec"]["minAvailable"] == 1

    def test_every_worker_scales_on_its_own_queue(self, manifests: list[Manifest]) -> None:
        deployments = _by_kind(manifests, "Deployment")
        scaled = _by_kind(manifests, "ScaledObject")
        auth = _by_kind(manifests, "TriggerAuthentication")
        for manifest, container in _containers(manifests):
            if container["command"][1] != "worker":
                continue
            (queue,) = _worker_queues(container)
            scaler = scaled[manifest.name].body["spec"]
            assert scaler["scaleTargetRef"]["name"] in deployments
            (trigger,) = scaler["triggers"]
            assert trigger["authenticationRef"]["name"] in auth
            if queue in RUN_QUEUES:
                # Direct claims coalesce a backlog's wake-ups: the list no longer counts the runs.
                assert trigger["type"] == "postgresql", manifest.name
                assert f"queue = '{queue}'" in trigger["metadata"]["query"], manifest.name
                assert float(trigger["metadata"]["targetQueryValue"]) > 0
                assert float(trigger["metadata"]["activationTargetQueryValue"]) >= 0
            else:
                assert trigger["type"] == "redis", manifest.name
                assert trigger["metadata"]["listName"] == queue, (
                    "the list Celery keeps the queue's messages in"
                )
                assert int(trigger["metadata"]["listLength"]) >= 1
                assert int(trigger["metadata"]["activationListLength"]) >= 0
            assert scaler["cooldownPeriod"] > 0
            assert scaler["minReplicaCount"] <= scaler["maxReplicaCount"]
            selector = manifest.body["spec"]["selector"]["matchLabels"]
            pdb = _by_kind(manifests, "PodDisruptionBudget")[manifest.name].body["spec"]
            assert pdb["selector"]["matchLabels"] == selector

    def test_keda_reaches_postgresql_past_a_transaction_pooler(self, manifests: list[Manifest]) -> None:
        (config,) = _by_kind(manifests, "ConfigMap").values()
        pooled = config.body["data"]["AUTOMATIONS_DATABASE_POOLER"] == "transaction"
        postgres = _by_kind(manifests, "TriggerAuthentication")["automations-postgres"].body["spec"]
        (reference,) = postgres["secretTargetRef"]
        assert reference["parameter"] == "connection"
        assert reference["key"] == ("database-direct-url" if pooled else "database-url"), (
            "KEDA prepares its statements, which a pooler in transaction mode does not keep"
        )

    def test_run_workers_may_drain_a_default_run_before_they_are_killed(
        self, manifests: list[Manifest]
    ) -> None:
        for manifest, spec in _pod_specs(manifests):
            container = spec["containers"][0]
            if container["command"][1] != "worker":
                continue
            (queue,) = _worker_queues(container)
            grace = spec["terminationGracePeriodSeconds"]
            if queue in RUN_QUEUES and queue != "runs.fast":
                assert grace > DEFAULT_RUN_TIMEOUT_SECONDS, f"{manifest.name}: a run may hold a worker longer"
            assert grace >= 60, f"{manifest.name}: too short for a step to end"
