# Process helpers shared by s3-server and http-server (sourced, not run).
# The servers are started in the background by one invocation and stopped by
# another, so they are tracked through pid files, not the shell's jobs.

# is_running PID: true while PID exists and is not a zombie (a zombie's
# parent may never reap it, and kill -0 would keep saying it is alive).
is_running() {
	local state
	state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$state" ] && [ "$state" != Z ]
}

# stop_pidfile FILE WORD: stops the process whose pid FILE holds, if it is
# still running and its command line contains WORD (so a reused pid of an
# unrelated process is left alone); TERM, then KILL after 5 s; waits until it
# is gone and removes FILE.
stop_pidfile() {
	local file=$1 word=$2 pid i
	[ -f "$file" ] || return 0
	pid=$(cat "$file")
	if [ -n "$pid" ] && is_running "$pid" && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$word"; then
		kill -TERM "$pid" 2>/dev/null || true
		for ((i = 0; i < 100; i++)); do
			is_running "$pid" || break
			sleep 0.05
		done
		if is_running "$pid"; then
			kill -KILL "$pid" 2>/dev/null || true
			for ((i = 0; i < 40; i++)); do
				is_running "$pid" || break
				sleep 0.05
			done
		fi
	fi
	rm -f "$file"
}

# wait_for_file FILE PID LOG: waits (up to 15 s) until FILE exists; fails,
# showing LOG, if PID exits first or time runs out.
wait_for_file() {
	local file=$1 pid=$2 log=$3 i
	for ((i = 0; i < 300; i++)); do
		[ -s "$file" ] && return 0
		if ! is_running "$pid"; then
			echo "process $pid exited before writing $file; its log:" >&2
			cat "$log" >&2 2>/dev/null || true
			return 1
		fi
		sleep 0.05
	done
	echo "timed out waiting for $file; log $log:" >&2
	cat "$log" >&2 2>/dev/null || true
	return 1
}

# start_front STATE_DIR UPSTREAM_URL [front.js options]: starts front.js
# before UPSTREAM_URL, waits until it listens, writes STATE_DIR/endpoint.
start_front() {
	local dir=$1 upstream=$2
	shift 2
	rm -f "$dir/front.port"
	node "$net_dir/front.js" --upstream "$upstream" --port-file "$dir/front.port" "$@" \
		</dev/null >"$dir/front.log" 2>&1 &
	echo $! >"$dir/front.pid"
	wait_for_file "$dir/front.port" "$(cat "$dir/front.pid")" "$dir/front.log" || return 1
	echo "http://127.0.0.1:$(cat "$dir/front.port")" >"$dir/endpoint"
}
