print("fieldloc-hil: not yet")
