"""Writers: each turns a plan that services decided, as data, into the fewest statements."""
