COMMENT
The artificial cell of Hines, Kumar & Schuermann (2011), written for spikex's NEURON
comparison (bench/neuron/) from spikex's description (docs/models/interval_fire.md,
spec/models.md), not copied from ModelDB.

State m relaxes towards minf = 1/(1 - exp(-invl/tau)), so that from m = 0 it reaches 1
after exactly invl ms. A self-event (flag 1) at that time fires the cell; it restarts at
m = 0 with a new interval drawn uniformly in [invl_low, invl_high] (the same rule as
spikex's interval_fire, one stream per cell). An input of weight w adds w to m; above 1 the
cell fires at once, otherwise the pending self-event is moved to the new crossing time.
One exp per input (the update of m) and one log (the new firing time), as in the paper.
ENDCOMMENT

NEURON {
    ARTIFICIAL_CELL IntervalFire
    RANGE tau, m, invl, invl_low, invl_high
    RANDOM rng
}

PARAMETER {
    tau = 5 (ms)
    invl_low = 20 (ms)
    invl_high = 40 (ms)
}

ASSIGNED {
    m
    minf
    invl (ms)
    t0 (ms)
}

INITIAL {
    random_setseq(rng, 0)
    m = 0
    t0 = t
    draw()
    net_send(firetime(), 1)
}

NET_RECEIVE (w) {
    m = state_now()
    t0 = t
    if (flag == 0) {
        m = m + w
        if (m > 1) {
            m = 0
            draw()
            net_event(t)
        }
        net_move(t + firetime())
    } else {
        net_event(t)
        m = 0
        draw()
        net_send(firetime(), 1)
    }
}

PROCEDURE draw() {
    invl = random_uniform(rng, invl_low, invl_high)
    minf = 1 / (1 - exp(-invl / tau))
}

FUNCTION firetime() (ms) {
    firetime = tau * log((minf - m) / (minf - 1))
}

FUNCTION state_now() {
    state_now = minf + (m - minf) * exp(-(t - t0) / tau)
}
