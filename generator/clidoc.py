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

    def add(group: click.Group, parent: click.Context, prefix: str) -> None:
        """Every command of ``group``, and of each group in it, after the group itself."""
        for name in sorted(group.commands):
            command = group.commands[name]
            ctx = click.Context(
                command, info_name=name, parent=parent, terminal_width=width, max_content_width=width
            )
            commands.append((f"{prefix} {name}", ctx))
            if isinstance(command, click.Group):
                add(command, ctx, f"{prefix} {name}")

    add(main, root, "benchsite")
    for title, ctx in commands:
        parts.append(f"## `{title}`\n\n```text\n{ctx.command.get_help(ctx).rstrip()}\n```\n")
    return "\n".join(parts)


if __name__ == "__main__":
    click.echo(cli_reference(), nl=False)
