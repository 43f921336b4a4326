"""``svc-engine run`` and ``svc-engine parallel``: one-shot prompts to a model."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import asyncclick as click
import trio

from svc import Settings
from svc.errors import SvcError

from .common import fail, load_settings, print_json, read_json_input

# The HTTP client, the provider registry and the chat types are imported by the
# commands that call a model: the command group (and `--version`) never loads them.
if TYPE_CHECKING:
    from svc.providers import ProviderRegistry

MAX_CONCURRENCY = 32


def _settings_for(
    provider: str | None, model: str | None, api_key: str | None, config: Path | None
) -> Settings:
    """Settings with the flags applied to the provider this invocation will use (and only for it)."""
    base = load_settings(config_path=config)
    chosen = provider.strip().lower() if provider else None
    if provider is not None and not chosen:
        fail("--provider must not be empty", 2)
    if chosen is None and (api_key or model):
        from svc.providers import ProviderRegistry

        chosen = ProviderRegistry(base, None).default_provider_id()  # type: ignore[arg-type]
    return load_settings(config_path=config, provider=chosen, model=model, api_key=api_key)


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
@click.option(
    "--config", type=click.Path(path_type=Path), default=None, help="Project config file."
)
async def run(
    prompt: str, provider: str | None, model: str | None, api_key: str | None, config: Path | None
) -> None:
    """Send one prompt and print the reply."""
    import httpx

    from svc.providers import ProviderRegistry

    settings = _settings_for(provider, model, api_key, config)
    async with httpx.AsyncClient(timeout=httpx.Timeout(120.0, connect=10.0)) as http:
        registry = ProviderRegistry(settings, http)
        try:
            # Fail fast on an unknown provider, before any model call.
            if provider:
                registry.get(provider.strip().lower())
            click.echo(
                await _complete(
                    registry, settings.default_provider if provider else None, model, prompt
                )
            )
        except SvcError as exc:
            fail(exc.message)


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
    "--concurrency", type=int, default=4, show_default=True, help="Tasks run at once (1-32)."
)
@click.option("--provider", default=None, help="Provider for tasks that name none.")
@click.option("--model", default=None, help="Model for tasks that name none.")
@click.option("--api-key", default=None, help="API key for this invocation only.")
@click.option(
    "--config", type=click.Path(path_type=Path), default=None, help="Project config file."
)
async def parallel(
    json_input: str,
    concurrency: int,
    provider: str | None,
    model: str | None,
    api_key: str | None,
    config: Path | None,
) -> None:
    """Run several prompts concurrently and print a JSON summary."""
    import httpx

    from svc.providers import ProviderRegistry

    tasks = _tasks(read_json_input(json_input))
    concurrency = max(1, min(MAX_CONCURRENCY, concurrency))
    settings = _settings_for(provider, model, api_key, config)
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
