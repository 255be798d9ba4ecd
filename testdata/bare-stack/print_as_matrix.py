#!/usr/bin/env python3
"""Prints Matrix Trace_EvilMethod reports (NDJSON on stdin) as Matrix prints
them to logcat, so that hangar's bare-stack reader is tested on the text
Matrix really writes.  Followed: Tencent/matrix @ 3b8293bd,
matrix/matrix-android/matrix-trace-canary/src/main/java/com/tencent/matrix/
trace/tracer/EvilMethodTracer.java (AnalyseTask.printEvil),
LooperAnrTracer.java (AnrHandleTask.printAnr, and the " \\npostTime:%s
curTime:%s" it appends), util/TraceDataUtils.java (stackToString: "|*\\t\\t"
+ MethodItem.print()), items/MethodItem.java (print(): one '.' per depth,
then "id count cost").

Fields a report does not carry are printed as: Priority 20, Nice 0,
is64BitRuntime true, Foreground true (unless isProcessForeground says),
thread state RUNNABLE, pid 8080, tid 8135 (and the main thread 8080).

usage: print_as_matrix.py [--logcat] < reports.ndjson > log.txt
  --logcat   each line behind a threadtime prefix ("MM-DD HH:MM:SS.mmm  PID
             TID W TAG: "), the time from the report's `time` (UTC)."""
import datetime
import json
import sys

FOOTER = "=" * 73


def items(stack):
    for line in stack.splitlines():
        if line:
            d, i, c, t = line.split(",")
            yield "." * int(d) + i + " " + c + " " + t


def print_evil(c):
    cost = c["cost"]  # the JSON cost is max(cost, stack): what printEvil gets is no larger
    out = ["-", ">>>>>>>>>>>>>>>>>>>>> maybe happens Jankiness!(%sms) <<<<<<<<<<<<<<<<<<<<<" % cost,
           "|* [Status]", "|*\t\tScene: " + c.get("scene", ""),
           "|*\t\tForeground: " + ("true" if c.get("isProcessForeground", True) else "false"),
           "|*\t\tPriority: 20\tNice: 0", "|*\t\tis64BitRuntime: true",
           "|*\t\tStackKey: " + c["stackKey"], "|*\t\tTraceStack:", "|*\t\t[id count cost]"]
    out += ["|*\t\t" + i for i in items(c["stack"])]
    out.append(FOOTER)
    return "Matrix.EvilMethodTracer", out


def print_anr(c, token):
    mem = c.get("memory", {})
    out = ["-", ">>>>>>>>>>>>>>>>>>>>>>> maybe happens ANR(%s ms)! <<<<<<<<<<<<<<<<<<<<<<<" % c["cost"],
           "|* [Status]", "|*\t\tScene: " + c.get("scene", ""),
           "|*\t\tForeground: " + ("true" if c.get("isProcessForeground", True) else "false"),
           "|*\t\tPriority: %s\tNice: %s" % (c.get("processPriority", 20), c.get("processNice", 0)),
           "|*\t\tis64BitRuntime: true", "|* [Memory]",
           "|*\t\tDalvikHeap: %skb" % mem.get("dalvik_heap", 0),
           "|*\t\tNativeHeap: %skb" % mem.get("native_heap", 0),
           "|*\t\tVmSize: %skb" % mem.get("vm_size", 0), "|* [Thread]"]
    # String.format("|*\t\tStack(%s): ", state) + dumpStack, which starts with " \n"
    stack = ("|*\t\tStack(RUNNABLE): " + c.get("threadStack", "")).split("\n")
    if stack and stack[-1] == "":
        stack.pop()
    out += stack
    out += ["|* [Trace]", "|*\t\tStackKey: " + c["stackKey"], "|*\t\tTraceStack:",
            "|*\t\t[id count cost]"]
    out += ["|*\t\t" + i for i in items(c["stack"])]
    out.append(FOOTER + " ")
    out.append("postTime:%d curTime:%d" % (token // 1000000, c["time"] % 100000000))
    return "Matrix.AnrTracer", out


def main():
    logcat = "--logcat" in sys.argv[1:]
    for line in sys.stdin:
        r = json.loads(line)
        c = r.get("content", r)
        tag, lines = print_anr(c, int(r.get("key", "0"))) if c.get("detail") == "ANR" else print_evil(c)
        if logcat:
            t = datetime.datetime.fromtimestamp(c["time"] / 1000, datetime.timezone.utc)
            pre = "%s  8080  8135 W %s: " % (t.strftime("%m-%d %H:%M:%S.") + "%03d" % (t.microsecond // 1000), tag)
            lines = [pre + l for l in lines]
        sys.stdout.write("\n".join(lines) + "\n")


main()
