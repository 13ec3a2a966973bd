"""The CLI reference, generated from ``--help`` so the docs cannot drift.

Regenerate: ``python -m generator.clidoc > docs/cli.md`` (a test compares the committed file).
"""

from __future__ import annotations

import click

from generator.cli import main


def cli_reference() -> str:
    parts = ["# CLI reference\n", "Generated from `--help` by `python -m generator.clidoc`; do not edit.\n"]
    width = 88  # fixed, whatever the terminal, so the committed file is stable
    root = click.Context(
        main, info_name="benchsite", terminal_width=width, max_content_width=width, **main.context_settings
    )
    commands = [("benchsite", root)]
    for name in sorted(main.commands):
        commands.append(
            (
                f"benchsite {name}",
                click.Context(
                    main.commands[name],
                    info_name=name,
                    parent=root,
                    terminal_width=width,
                    max_content_width=width,
                ),
            )
        )
    for title, ctx in commands:
        parts.append(f"## `{title}`\n\n```text\n{ctx.command.get_help(ctx).rstrip()}\n```\n")
    return "\n".join(parts)


if __name__ == "__main__":
    click.echo(cli_reference(), nl=False)
