"""Reference data the prices need: exchange rates."""
