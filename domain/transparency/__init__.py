"""The public log's pure parts: RFC 9162 Merkle tree hashing and the proofs it answers."""
