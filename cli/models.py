"""``svc-engine run`` and ``svc-engine parallel``: one-shot prompts to a model."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import asyncclick as click
import trio

from svc import Settings
from svc.errors import SvcError

from .common import QUIET_HELP, fail, load_settings, note, print_json, read_json_input

# The HTTP client, the provider registry and the chat types are imported by the
# commands that call a model: the command group (and `--version`) never loads them.
if TYPE_CHECKING:
    from svc.providers import ProviderRegistry
    from svc.providers.registry import DefaultRoute

MAX_CONCURRENCY = 32

CONFIG_HELP = "Project config file (default .svc/config.json)."
STATE_DIR_HELP = "Where state lives."


def _settings_for(
    provider: str | None,
    model: str | None,
    api_key: str | None,
    config: Path | None,
    state_dir: Path | None = None,
) -> tuple[Settings, DefaultRoute]:
    """Settings with the flags applied to the provider this invocation will use (and only for it).

    Also the default route as configured (before ``--api-key``/``--model`` pin a
    provider), which says whether a run that names no provider gets the echo model.
    """
    from svc.providers.registry import default_route

    base = load_settings(config_path=config, state_dir=state_dir)
    route = default_route(base)
    chosen = provider.strip().lower() if provider else None
    if provider is not None and not chosen:
        fail("--provider must not be empty", 2)
    if chosen is None and (api_key or model):
        chosen = route.provider
    settings = load_settings(
        config_path=config, state_dir=state_dir, provider=chosen, model=model, api_key=api_key
    )
    return settings, route


def _fallback_note(route: DefaultRoute) -> None:
    from svc.providers.registry import FALLBACK_NOTICE

    if route.ignored:
        note(f"default_provider `{route.ignored}` is not configured, so it is not used.")
    note(f"{FALLBACK_NOTICE} (--quiet hides this note)")


async def _complete(
    registry: ProviderRegistry, provider_id: str | None, model: str | None, prompt: str
) -> str:
    from svc.providers import ChatMessage, ChatRequest

    provider, model_id = registry.resolve(provider_id, model)
    completion = await provider.chat(
        ChatRequest(model=model_id, messages=(ChatMessage(role="user", content=prompt),))
    )
    return completion.text


@click.command()
@click.argument("prompt")
@click.option("--provider", default=None, help="Provider id (must be configured).")
@click.option("--model", default=None, help="Model id.")
@click.option("--api-key", default=None, help="API key for this invocation only.")
@click.option("--config", type=click.Path(path_type=Path), default=None, help=CONFIG_HELP)
@click.option("--state-dir", type=click.Path(path_type=Path), default=None, help=STATE_DIR_HELP)
@click.option("--quiet", "-q", is_flag=True, help=QUIET_HELP)
async def run(
    prompt: str,
    provider: str | None,
    model: str | None,
    api_key: str | None,
    config: Path | None,
    state_dir: Path | None,
    quiet: bool,
) -> None:
    """Send one prompt and print the reply (notices go to stderr).

    \b
    Example:
      svc-engine run "Summarise README.md in one line" --provider openai
    """
    import httpx

    from svc.providers import ProviderRegistry
    from svc.providers.types import PROVIDER_NOT_CONFIGURED

    settings, route = _settings_for(provider, model, api_key, config, state_dir)
    async with httpx.AsyncClient(timeout=httpx.Timeout(120.0, connect=10.0)) as http:
        registry = ProviderRegistry(settings, http)
        try:
            # Fail fast on an unknown provider, before any model call.
            if provider:
                registry.get(provider.strip().lower())
            elif route.is_fallback and not quiet:
                _fallback_note(route)
            click.echo(
                await _complete(
                    registry, settings.default_provider if provider else None, model, prompt
                )
            )
        except SvcError as exc:
            fail(exc.message, 2 if exc.code == PROVIDER_NOT_CONFIGURED else 1)


def _tasks(raw: Any) -> list[dict[str, Any]]:
    if isinstance(raw, dict) and "tasks" in raw:
        raw = raw["tasks"]
    if not isinstance(raw, list):
        fail('--json must be an array of prompts, an array of objects, or {"tasks": [...]}', 2)
    if not raw:
        fail("--json has no tasks", 2)
    tasks = []
    for index, item in enumerate(raw, start=1):
        if isinstance(item, str):
            item = {"prompt": item}
        if not isinstance(item, dict):
            fail(f"task {index} must be a string or an object", 2)
        prompt = item.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            fail(f"task {index} has an empty prompt", 2)
        provider = item.get("provider")
        tasks.append(
            {
                "id": str(item.get("id") or f"task-{index}"),
                "prompt": prompt,
                "provider": provider.strip().lower()
                if isinstance(provider, str) and provider.strip()
                else None,
                "model": item.get("model") if isinstance(item.get("model"), str) else None,
            }
        )
    return tasks


@click.command()
@click.option("--json", "json_input", required=True, help="Tasks: raw JSON, @file, or - for stdin.")
@click.option(
    "--concurrency",
    type=click.IntRange(1, MAX_CONCURRENCY, clamp=True),
    default=4,
    show_default=True,
    help="Tasks run at once (1-32).",
)
@click.option("--provider", default=None, help="Provider for tasks that name none.")
@click.option("--model", default=None, help="Model for tasks that name none.")
@click.option("--api-key", default=None, help="API key for this invocation only.")
@click.option("--config", type=click.Path(path_type=Path), default=None, help=CONFIG_HELP)
@click.option("--quiet", "-q", is_flag=True, help=QUIET_HELP)
async def parallel(
    json_input: str,
    concurrency: int,
    provider: str | None,
    model: str | None,
    api_key: str | None,
    config: Path | None,
    quiet: bool,
) -> None:
    """Run several prompts concurrently and print a JSON summary.

    \b
    Example:
      svc-engine parallel --json '["first prompt", {"id": "b", "prompt": "second"}]'
    """
    import httpx

    from svc.providers import ProviderRegistry

    tasks = _tasks(read_json_input(json_input))
    concurrency = max(1, min(MAX_CONCURRENCY, concurrency))
    settings, route = _settings_for(provider, model, api_key, config)
    if route.is_fallback and not quiet and not provider and any(not t["provider"] for t in tasks):
        _fallback_note(route)
    results: list[dict[str, Any]] = [{} for _ in tasks]
    limiter = trio.Semaphore(concurrency)
    async with httpx.AsyncClient(timeout=httpx.Timeout(120.0, connect=10.0)) as http:
        registry = ProviderRegistry(settings, http)

        async def one(index: int, task: dict[str, Any]) -> None:
            async with limiter:
                chosen = task["provider"] or (provider.strip().lower() if provider else None)
                try:
                    output = await _complete(
                        registry, chosen, task["model"] or model, task["prompt"]
                    )
                    results[index] = {
                        "id": task["id"],
                        "provider": chosen,
                        "status": "ok",
                        "output": output,
                        "error": None,
                    }
                except SvcError as exc:
                    results[index] = {
                        "id": task["id"],
                        "provider": chosen,
                        "status": "error",
                        "output": None,
                        "error": exc.message,
                    }

        async with trio.open_nursery() as nursery:
            for index, task in enumerate(tasks):
                nursery.start_soon(one, index, task)
    failures = sum(1 for r in results if r["status"] != "ok")
    print_json(
        {"concurrency": concurrency, "total": len(tasks), "failures": failures, "results": results}
    )
    if failures:
        click.echo(f"parallel completed with {failures} failed task(s)", err=True)
        sys.exit(1)
