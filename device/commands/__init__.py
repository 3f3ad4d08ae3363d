"""One module per `tarokcam` subcommand; each defines `register(subparsers)`."""
