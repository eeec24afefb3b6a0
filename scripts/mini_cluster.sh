#!/usr/bin/env bash
# mini_cluster.sh -- an emulated multi-host cluster on this one machine, for tests.
#
# Usage:
#   mini_cluster.sh up N [--rate RATE] [--slots S]   create hosts 1..N (N = 1..8)
#   mini_cluster.sh down                             remove everything `up` created
#   mini_cluster.sh status                           show the cluster; exit 0 if up, 1 if not
#   mini_cluster.sh rate RATE|none                   change/remove link limits of a running cluster
#   mini_cluster.sh agent [ssh-opts] HOST CMD...     (internal) OpenMPI's rsh agent
#
# Each "host" is a Linux network namespace (${P}h1..${P}hN, P = $MINI_CLUSTER_PREFIX,
# default "sx") with `lo` and one veth `eth0` plugged into a private bridge ${P}br0.
# Addresses: bridge NET.1 in the root namespace, host i NET.(10+i), NET being
# $MINI_CLUSTER_NET (default 10.231.0, always a /24).
#
# Guarantees:
#  * Traffic never leaves the bridge: the namespaces have only the connected /24
#    route (no default route), and nothing here touches NAT or ip_forward.
#  * --rate puts a tbf qdisc on both ends of each host's veth, so both directions
#    of every host link are limited.
#  * `up` writes $MINI_CLUSTER_STATE (default /run/spikex-mini-cluster, or
#    /run/spikex-mini-cluster-P for a non-default prefix) with:
#      hostfile       OpenMPI hostfile, hosts named by IP ("10.231.0.11 slots=2")
#      mpiexec_args   extra mpiexec arguments, whitespace-separated (one option per
#                     line, no token contains whitespace): `mpiexec $(cat mpiexec_args) ...`
#      agent          the plm_rsh_agent wrapper named in mpiexec_args; also usable
#                     by hand like ssh: `$STATE/agent 10.231.0.12 'hostname; ss -tn'`
#      hosts          "IP NAME" per host;  info  key=value facts for `status`
#  * The agent starts OpenMPI's orted inside the host's network namespace, in a
#    fresh UTS namespace whose hostname is the host's name (so gethostname(),
#    MPI_Get_processor_name and socket.gethostname() return e.g. "sxh2") and a fresh
#    PID namespace. When the mpiexec that started the agent exits for any reason
#    (even SIGKILL), the agent is SIGKILLed (PDEATHSIG), which SIGKILLs the PID
#    namespace's init (unshare --kill-child), which makes the kernel SIGKILL every
#    process in that PID namespace: orted and all its ranks are gone at once, like
#    a real cluster's job-step cleanup, even when the host's link is down.
#  * `down` kills anything still running in the namespaces, removes namespaces,
#    veths, bridge, qdiscs and the state directory; it succeeds on a half-up or
#    absent cluster. A failing `up` takes down what it built; `up` on an existing
#    cluster first takes it down.
#
# Exit codes: 0 ok, 1 failure (status: not up), 2 bad arguments,
# 77 cannot run here (not root, namespaces or tools not available) -- callers skip.
set -euo pipefail

PREFIX=${MINI_CLUSTER_PREFIX:-sx}
NET=${MINI_CLUSTER_NET:-10.231.0}
if [[ -n ${MINI_CLUSTER_STATE:-} ]]; then
    STATE=$MINI_CLUSTER_STATE
elif [[ $PREFIX == sx ]]; then
    STATE=/run/spikex-mini-cluster
else
    STATE=/run/spikex-mini-cluster-$PREFIX
fi
BR=${PREFIX}br0
MAX_HOSTS=8
PROG=mini_cluster.sh

die()  { echo "$PROG: $*" >&2; exit 1; }
usage_error() { echo "$PROG: $* (see $PROG --help)" >&2; exit 2; }
skip() { echo "$PROG: cannot run here: $*" >&2; exit 77; }

# Validate configuration from the environment early: these end up in interface
# names (max 15 chars: prefix <= 8 + "br0"), addresses and mpiexec arguments.
[[ $PREFIX =~ ^[a-z][a-z0-9]{0,7}$ ]] || usage_error "MINI_CLUSTER_PREFIX must match [a-z][a-z0-9]{0,7}, got '$PREFIX'"
[[ $NET =~ ^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$ ]] && ((BASH_REMATCH[1] < 256 && BASH_REMATCH[2] < 256 && BASH_REMATCH[3] < 256)) \
    || usage_error "MINI_CLUSTER_NET must be the first three octets of a /24, e.g. 10.231.0, got '$NET'"
[[ $STATE == /* && $STATE != *[[:space:]\'\"\\]* && $STATE != / ]] \
    || usage_error "MINI_CLUSTER_STATE must be an absolute path without whitespace or quotes, got '$STATE'"
SUBNET=$NET.0/24

ns_name()   { echo "${PREFIX}h$1"; }    # namespace == emulated host name
veth_name() { echo "${PREFIX}v$1"; }    # root-namespace end of host i's veth
host_ip()   { echo "$NET.$((10 + $1))"; }

# --- rate handling ---------------------------------------------------------

# rate_bytes RATE -> bytes/s (tc units: bit/kbit/mbit/gbit/tbit are SI bits/s,
# bps/kbps/... are bytes/s); fails on anything else.
rate_bytes() {
    local r=${1,,}
    [[ $r =~ ^([0-9]+(\.[0-9]+)?)(bit|kbit|mbit|gbit|tbit|bps|kbps|mbps|gbps|tbps)$ ]] || return 1
    awk -v n="${BASH_REMATCH[1]}" -v u="${BASH_REMATCH[3]}" 'BEGIN {
        m["bit"]=1/8; m["kbit"]=1e3/8; m["mbit"]=1e6/8; m["gbit"]=1e9/8; m["tbit"]=1e12/8;
        m["bps"]=1;   m["kbps"]=1e3;   m["mbps"]=1e6;   m["gbps"]=1e9;   m["tbps"]=1e12;
        b = n * m[u]; if (b < 1000) exit 1; printf "%d\n", b }'
}

# tbf_args RATE -> arguments for `tc qdisc ... tbf`.
# burst: the bucket is bytes a host may send at line speed, above the rate. A real
#   link has no such credit, and MPI's per-interval messages are tens of kB: a
#   bucket of 128 KiB refilled during each interval's computation let them all go
#   at veth speed (bench/cluster_time_model.py measured it). So the bucket is small:
#   50 us of the rate, at least 4 frames; apply_rate caps the veths' GSO packets at
#   one frame (gso_max_size) so that no packet is larger than the bucket.
# latency: the queue tbf holds before dropping. 50 ms of backlog absorbs TCP's
#   window bursts without tail drops (which would make TCP back off and throttle
#   far below the rate) while keeping queueing delay bounded.
FRAME_BYTES=1514
tbf_args() {
    local bps burst
    bps=$(rate_bytes "$1") || return 1
    burst=$((bps / 20000))
    ((burst >= 4 * FRAME_BYTES)) || burst=$((4 * FRAME_BYTES))
    echo "rate $1 burst $burst latency 50ms"
}

apply_rate() {   # apply_rate N RATE|none
    local n=$1 rate=$2 i args
    for ((i = 1; i <= n; i++)); do
        if [[ $rate == none ]]; then
            tc qdisc del dev "$(veth_name "$i")" root 2>/dev/null || true
            tc -n "$(ns_name "$i")" qdisc del dev eth0 root 2>/dev/null || true
            ip link set dev "$(veth_name "$i")" gso_max_size 65536
            ip -n "$(ns_name "$i")" link set dev eth0 gso_max_size 65536
        else
            ip link set dev "$(veth_name "$i")" gso_max_size 1500
            ip -n "$(ns_name "$i")" link set dev eth0 gso_max_size 1500
            args=$(tbf_args "$rate")
            # shellcheck disable=SC2086  # args is a word list built above
            tc qdisc replace dev "$(veth_name "$i")" root tbf $args
            # shellcheck disable=SC2086
            tc -n "$(ns_name "$i")" qdisc replace dev eth0 root tbf $args
        fi
    done
}

# --- discovery (works from the names alone, so `down` needs no state) ------------

our_namespaces() { ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${PREFIX}h[0-9]+\$" || true; }
our_links() { ip -o link show 2>/dev/null | awk -F': ' '{sub(/@.*/, "", $2); print $2}' | grep -E "^(${PREFIX}v[0-9]+|${PREFIX}br0)\$" || true; }
state_get() { sed -n "s/^$1=//p" "$STATE/info" 2>/dev/null | head -n1; }

# --- down -------------------------------------------------------------------

do_down() {
    local ns pid tries link
    for ns in $(our_namespaces); do
        # Kill whatever still runs in the host (orteds, ranks, stray shells).
        # Killing a PID namespace's init kills the whole PID namespace, so this
        # converges quickly; retry a few times for processes that were forking.
        for tries in 1 2 3 4 5 6 7 8 9 10; do
            pid=$(ip netns pids "$ns" 2>/dev/null || true)
            [[ -z $pid ]] && break
            # shellcheck disable=SC2086
            kill -KILL $pid 2>/dev/null || true
            sleep 0.1
        done
        ip netns del "$ns" 2>/dev/null || true    # also destroys the veth pair and its qdiscs
    done
    for link in $(our_links); do
        ip link del "$link" 2>/dev/null || true
    done
    rm -rf -- "$STATE"
    # ORTE session directories (ompi.<hostname>.<uid>) of our emulated hosts,
    # left behind by jobs whose orteds were killed rather than shut down.
    local d
    for d in /tmp/ompi."${PREFIX}"h[0-9]*.* "${TMPDIR:-/tmp}"/ompi."${PREFIX}"h[0-9]*.*; do
        [[ -d $d && ${d##*/} =~ ^ompi\.${PREFIX}h[0-9]+\.[0-9]+$ ]] && rm -rf -- "$d"
    done
    # Leftovers mean something else holds them; report instead of pretending.
    [[ -z $(our_namespaces) && -z $(our_links) ]] || die "down: could not remove: $(our_namespaces) $(our_links)"
}

# --- up ---------------------------------------------------------------------

# run_priv CMD...: run a setup command; a permission failure means this machine
# cannot host the cluster (container without CAP_NET_ADMIN/CAP_SYS_ADMIN...): exit 77.
run_priv() {
    local err
    if ! err=$("$@" 2>&1); then
        if [[ $err =~ (Operation not permitted|Permission denied|not supported|Read-only file system) ]]; then
            skip "'$*' failed: $err"
        fi
        die "'$*' failed: $err"
    fi
}

do_up() {
    local n=$1 rate=$2 slots=$3 i ns veth ip self
    self=$(readlink -f "${BASH_SOURCE[0]}")
    [[ $self != *[[:space:]\'\"\\]* ]] || die "script path must not contain whitespace or quotes: $self"

    # A subnet already routed elsewhere would make the cluster reach real hosts.
    if ip -4 route show 2>/dev/null | awk -v br="$BR" '$3 != br {print $1}' | grep -Fq "$NET."; then
        die "subnet $SUBNET is already in use on this machine (set MINI_CLUSTER_NET)"
    fi
    if [[ -d $STATE || -n $(our_namespaces) || -n $(our_links) ]]; then
        do_down
    fi

    trap 'rc=$?; if ((rc != 0)); then ((rc == 77)) || echo "$PROG: up failed, cleaning up" >&2; do_down >/dev/null 2>&1 || true; fi; exit $rc' EXIT

    run_priv ip link add "$BR" type bridge
    ip addr add "$NET.1/24" dev "$BR"
    ip link set "$BR" up
    for ((i = 1; i <= n; i++)); do
        ns=$(ns_name "$i") veth=$(veth_name "$i") ip=$(host_ip "$i")
        run_priv ip netns add "$ns"
        ip -n "$ns" link set lo up
        # Create the peer directly inside the namespace as eth0.
        ip link add "$veth" type veth peer name eth0 netns "$ns"
        ip link set "$veth" master "$BR"
        ip link set "$veth" up
        ip -n "$ns" addr add "$ip/24" dev eth0
        ip -n "$ns" link set eth0 up
    done
    [[ $rate == none ]] || apply_rate "$n" "$rate"

    # Self-test of what the agent needs: netns exec + new UTS and PID namespaces.
    local got
    got=$(ip netns exec "$(ns_name 1)" unshare --uts --pid --kill-child=KILL -- sh -c 'hostname "$1" && hostname' sh "$(ns_name 1)" 2>&1) \
        || skip "cannot create UTS/PID namespaces inside a host: $got"
    [[ $got == "$(ns_name 1)" ]] || die "UTS namespace self-test returned '$got'"

    mkdir -p "$STATE"
    : >"$STATE/hostfile"
    : >"$STATE/hosts"
    for ((i = 1; i <= n; i++)); do
        echo "$(host_ip "$i") slots=$slots" >>"$STATE/hostfile"
        echo "$(host_ip "$i") $(ns_name "$i")" >>"$STATE/hosts"
    done
    # The agent must be a single word: OpenMPI would split "prog agent" itself,
    # but callers split mpiexec_args on whitespace. Bake the settings in so the
    # agent finds this cluster whatever environment mpiexec runs in.
    cat >"$STATE/agent" <<EOF
#!/bin/sh
# Generated by $PROG up: OpenMPI plm_rsh_agent for this cluster.
MINI_CLUSTER_PREFIX='$PREFIX' MINI_CLUSTER_NET='$NET' MINI_CLUSTER_STATE='$STATE' exec '$self' agent "\$@"
EOF
    chmod 755 "$STATE/agent"
    # Why each argument (OpenMPI 4.1.4):
    #  --allow-run-as-root the agent needs root (ip netns exec), so mpiexec always
    #                     runs as root; OpenMPI refuses that without this flag (or
    #                     OMPI_ALLOW_RUN_AS_ROOT=1 + OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1).
    #                     Giving it twice is harmless. orted needs nothing extra.
    #  plm_rsh_agent      our agent instead of ssh.
    #  oob/btl if_include only the bridge subnet: mpiexec's control channel and
    #                     the ranks' data go over the emulated links.
    #  btl tcp,self       no shared memory (vader): ranks on different hosts can
    #                     only use TCP (ranks on the same host use TCP too).
    #  mpi_yield_when_idle every host's ranks share this machine's few cores, but
    #                     each orted sees only its own ranks and would let them
    #                     busy-poll: a spinning rank holds the core its peer needs
    #                     (measured: 200 ms instead of 10 ms per interval at 4 ranks).
    #  osc sm,ucx + UCX_* one-sided MPI (exchange.method = rma) over TCP: osc rdma
    #                     needs an RDMA-capable btl and osc pt2pt needs
    #                     MPI_THREAD_MULTIPLE; UCX's own tcp transport on eth0 only.
    #                     osc sm gives the shared-memory windows of one host's
    #                     ranks (MPI_Win_allocate_shared: the route library's
    #                     mailboxes); osc ucx cannot, and MPI_Win_create never
    #                     takes sm.
    #  (not plm_rsh_no_tree_spawn: with it ORTE passes --daemonize to orted,
    #   which would detach it from the agent and break cleanup; with <= 8 hosts
    #   the default radix-64 tree means mpiexec launches every orted itself.)
    cat >"$STATE/mpiexec_args" <<EOF
--allow-run-as-root
--mca plm_rsh_agent $STATE/agent
--mca oob_tcp_if_include $SUBNET
--mca btl_tcp_if_include $SUBNET
--mca btl tcp,self
--mca mpi_yield_when_idle 1
--mca osc sm,ucx
-x UCX_TLS=tcp,self
-x UCX_NET_DEVICES=eth0
--hostfile $STATE/hostfile
EOF
    cat >"$STATE/info" <<EOF
hosts=$n
slots=$slots
rate=$rate
prefix=$PREFIX
subnet=$SUBNET
bridge=$BR
EOF
    trap - EXIT
    echo "mini cluster up: $n hosts on $BR ($SUBNET), rate $rate; state in $STATE"
}

# --- status -----------------------------------------------------------------

do_status() {
    local n i ns ip up=1 link addr
    if [[ ! -f $STATE/info ]]; then
        echo "cluster: down (no state in $STATE)"
        [[ -z $(our_namespaces)$(our_links) ]] || echo "leftovers: $(our_namespaces | tr '\n' ' ')$(our_links | tr '\n' ' ')(run: $PROG down)"
        return 1
    fi
    n=$(state_get hosts)
    ip link show "$BR" >/dev/null 2>&1 || up=0
    printf '%-8s %-14s %-6s %s\n' HOST ADDRESS LINK QDISC
    for ((i = 1; i <= n; i++)); do
        ns=$(ns_name "$i") ip=$(host_ip "$i")
        if ip netns list | awk '{print $1}' | grep -qx "$ns"; then
            link=$(ip -n "$ns" -o link show eth0 2>/dev/null | grep -q 'state UP' && echo up || echo down)
            addr=$(ip -n "$ns" -4 -o addr show dev eth0 2>/dev/null | awk '{print $4}' | cut -d/ -f1)
            [[ $addr == "$ip" ]] || link="${link}(addr?)"
            printf '%-8s %-14s %-6s %s\n' "$ns" "$ip" "$link" "$(tc -n "$ns" qdisc show dev eth0 2>/dev/null | awk '$2=="tbf"{print "tbf", $8; exit}')"
        else
            printf '%-8s %-14s %s\n' "$ns" "$ip" missing
            up=0
        fi
    done
    echo "bridge: $BR $NET.1/24; rate: $(state_get rate); slots: $(state_get slots); state: $STATE"
    if ((up)); then echo "cluster: up"; return 0; fi
    echo "cluster: broken (run: $PROG down)"
    return 1
}

# --- agent ------------------------------------------------------------------
# ORTE (plm rsh) execs the agent directly as a child of mpiexec, as
#   AGENT [plm_rsh_args] HOST orted -mca ess "env" ... -mca orte_hnp_uri "..." ...
# i.e. like ssh: the words after HOST form a command line for a remote *shell*
# (values carry shell quotes), so we join them and hand them to sh -c.
# The process chain keeps the agent's PID, whose parent is mpiexec:
#   agent -> setpriv --pdeathsig KILL -> agent-stage2 (checks mpiexec still alive
#   after PDEATHSIG is armed) -> ip netns exec NS -> unshare --uts --pid
#   --kill-child=KILL (stays in the root PID namespace as the parent) -> [fork]
#   agent-stage3 = PID 1 of the host's PID namespace: sets the hostname, execs sh -c CMD.

do_agent() {
    local host ns
    while (($#)); do
        case $1 in
            -[1246AaCfGgKkMNnqsTtVvXxYy]) shift ;;                # ssh flags without value
            -[BbcDEeFIiJLlmOoPpQRSWw]) shift 2 ;;                # ssh options with a value
            --) shift; break ;;
            -*) shift ;;
            *) break ;;
        esac
    done
    (($# >= 2)) || { echo "$PROG agent: usage: agent [ssh-options] HOST COMMAND..." >&2; exit 255; }
    host=$1; shift
    ns=$(awk -v h="$host" '$1 == h || $2 == h {print $2; exit}' "$STATE/hosts" 2>/dev/null || true)
    [[ -n $ns ]] || { echo "$PROG agent: unknown host '$host' (cluster $STATE not up?)" >&2; exit 255; }
    exec setpriv --pdeathsig KILL -- "$(readlink -f "${BASH_SOURCE[0]}")" agent-stage2 "$PPID" "$ns" "$*"
}

do_agent_stage2() {   # PARENT_PID NS CMD
    # PDEATHSIG is armed now; if mpiexec died before that, nobody would kill us.
    [[ $PPID == "$1" ]] || exit 255
    exec ip netns exec "$2" unshare --uts --pid --kill-child=KILL -- \
        "$(readlink -f "${BASH_SOURCE[0]}")" agent-stage3 "$2" "$3"
}

do_agent_stage3() {   # NS CMD  (PID 1 of the host's PID namespace)
    hostname "$1"
    exec /bin/sh -c "$2"
}

# --- main -------------------------------------------------------------------

need_root_and_tools() {
    [[ $(id -u) == 0 ]] || skip "must run as root (network namespaces need CAP_NET_ADMIN/CAP_SYS_ADMIN)"
    local t
    for t in ip tc unshare setpriv hostname awk; do
        command -v "$t" >/dev/null 2>&1 || skip "required tool '$t' not found"
    done
}

cmd=${1:-}
(($#)) && shift
case $cmd in
    up)
        n= rate=none slots=2
        while (($#)); do
            case $1 in
                --rate) (($# >= 2)) || usage_error "--rate needs a value"; rate=$2; shift 2 ;;
                --rate=*) rate=${1#--rate=}; shift ;;
                --slots) (($# >= 2)) || usage_error "--slots needs a value"; slots=$2; shift 2 ;;
                --slots=*) slots=${1#--slots=}; shift ;;
                -*) usage_error "unknown option '$1'" ;;
                *) [[ -z $n ]] || usage_error "unexpected argument '$1'"; n=$1; shift ;;
            esac
        done
        [[ $n =~ ^[1-9][0-9]*$ ]] && ((n <= MAX_HOSTS)) || usage_error "N must be 1..$MAX_HOSTS, got '${n}'"
        [[ $slots =~ ^[1-9][0-9]{0,2}$ ]] || usage_error "--slots must be a positive integer, got '$slots'"
        [[ $rate == none ]] || rate_bytes "$rate" >/dev/null || usage_error "bad rate '$rate' (e.g. 100mbit, 1gbit, none)"
        need_root_and_tools
        do_up "$n" "$rate" "$slots"
        ;;
    down)
        (($# == 0)) || usage_error "down takes no arguments"
        need_root_and_tools
        do_down
        echo "mini cluster down"
        ;;
    status)
        (($# == 0)) || usage_error "status takes no arguments"
        do_status
        ;;
    rate)
        (($# == 1)) || usage_error "rate needs exactly one argument: RATE or none"
        [[ $1 == none ]] || rate_bytes "$1" >/dev/null || usage_error "bad rate '$1' (e.g. 100mbit, 1gbit, none)"
        need_root_and_tools
        [[ -f $STATE/info ]] || die "cluster is not up ($STATE missing)"
        apply_rate "$(state_get hosts)" "$1"
        sed -i "s/^rate=.*/rate=$1/" "$STATE/info"
        echo "rate: $1"
        ;;
    agent) do_agent "$@" ;;
    agent-stage2) do_agent_stage2 "$@" ;;
    agent-stage3) do_agent_stage3 "$@" ;;
    ''|-h|--help|help)
        sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
        [[ -n $cmd ]] || exit 2
        ;;
    *) usage_error "unknown command '$cmd'" ;;
esac
