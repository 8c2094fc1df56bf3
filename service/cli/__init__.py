"""`cardroom`: the operator's command line (service.cli.main), speaking to a running
service (its URL and a key) or, with --database-url, straight to the database through
the same application in this process."""
