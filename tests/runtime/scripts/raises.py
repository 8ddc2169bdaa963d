def inner():
    raise ValueError("bad value from the script")


print("before")
inner()
