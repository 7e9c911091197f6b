"""Development tools outside the runtime packages: benchmarks, synthetic history, recording builders."""
