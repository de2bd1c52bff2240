"""The peer simulators as backends: the same scenario run on ns-2.35 (:mod:`ccarena.peers.ns2`)
and ns-3.37 (:mod:`ccarena.peers.ns3`), returned as the simulator's result tables.

Both start from the *peer plan* (:mod:`ccarena.peers.plan`: the network and flows the simulator
would run, every value resolved) and end in :mod:`ccarena.peers.results` (their measurements
as a :class:`~ccarena.api.RunResult`). Each refuses, in one line naming the key, what it cannot
run like for like. docs/peers.md documents every mapping.
"""
