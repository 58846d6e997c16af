#!/usr/bin/env python3
"""Man pages (roff, section 1) for herald and each subcommand, from the argument parser's own
description of them (`herald --experimental-dump-help`, ArgumentParser's ToolInfo JSON), so the
pages say exactly what `--help` says. Usage: herald --experimental-dump-help | manpages.py VERSION DIR
"""
import datetime
import json
import os
import sys


def roff(text):
    """Escapes text for roff: backslashes, and a leading dot or quote."""
    text = (text or "").replace("\\", "\\e").replace("-", "\\-")
    return "\n".join(("\\&" + line) if line.startswith((".", "'")) else line for line in text.split("\n"))


def synopsis_part(argument):
    names = argument.get("names") or []
    long_names = [n for n in names if n["kind"] in ("long", "longWithSingleDash")]
    name = (long_names or names or [{"kind": "long", "name": argument.get("valueName", "")}])[0]
    dash = "--" if name["kind"] == "long" else "-"
    if argument["kind"] == "positional":
        part = "<%s>" % argument.get("valueName", "value")
    elif argument["kind"] == "flag":
        part = dash + name["name"]
    else:
        part = "%s%s <%s>" % (dash, name["name"], argument.get("valueName", "value"))
    if argument.get("isRepeating"):
        part += " ..."
    return "[%s]" % part if argument.get("isOptional") else part


def page(command, path, version, directory):
    title = " ".join(path)
    file_name = "-".join(path)
    visible = [a for a in command.get("arguments", []) if a.get("shouldDisplay", True)
               and not any(n["name"] in ("help", "version", "experimental-dump-help") for n in a.get("names") or [])]
    lines = [
        '.TH "%s" 1 "%s" "herald %s" "Herald"' % (file_name.upper(), datetime.date.today().isoformat(), version),
        ".SH NAME",
        "%s \\- %s" % (roff(title), roff(command.get("abstract", ""))),
        ".SH SYNOPSIS",
        ".B %s" % roff(title),
    ]
    # ArgumentParser's own `help` subcommand needs no page: `man herald` is the help.
    subcommands = [s for s in command.get("subcommands", []) if s.get("shouldDisplay", True) and s["commandName"] != "help"]
    if subcommands:
        lines.append("<subcommand>")
    lines += [roff(synopsis_part(a)) for a in visible]
    if command.get("discussion"):
        lines += [".SH DESCRIPTION", roff(command["discussion"])]
    if visible:
        lines.append(".SH OPTIONS")
        for argument in visible:
            names = ", ".join(("--" if n["kind"] == "long" else "-") + n["name"] for n in argument.get("names") or [])
            label = names or "<%s>" % argument.get("valueName", "value")
            if argument["kind"] == "option" and names:
                label += " <%s>" % argument.get("valueName", "value")
            lines += [".TP", ".B %s" % roff(label), roff(argument.get("abstract", ""))]
            if argument.get("defaultValue") not in (None, ""):
                lines.append("(default: %s)" % roff(str(argument["defaultValue"])))
            if argument.get("discussion"):
                lines.append(roff(argument["discussion"]))
    if subcommands:
        lines.append(".SH SUBCOMMANDS")
        for sub in subcommands:
            lines += [".TP", ".B %s" % roff(sub["commandName"]),
                      "%s (see \\fB%s\\fR(1))" % (roff(sub.get("abstract", "")), roff("-".join(path + [sub["commandName"]])))]
    if len(path) == 1:
        lines += [".SH FILES", "/usr/share/doc/herald/examples/herald.yaml, /usr/lib/systemd/user/herald.service,",
                  "/usr/share/herald/Sounds"]
    with open(os.path.join(directory, file_name + ".1"), "w") as out:
        out.write("\n".join(lines) + "\n")
    for sub in subcommands:
        page(sub, path + [sub["commandName"]], version, directory)


def main():
    version, directory = sys.argv[1], sys.argv[2]
    info = json.load(sys.stdin)
    page(info["command"], [info["command"]["commandName"]], version, directory)


main()
