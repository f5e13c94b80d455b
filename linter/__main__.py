from k8slb.cli import main

main()
